import { fromTaskItem, toTaskItem } from '#adapters/dynamodb/task-item';
import { derivePhase, IN_FLIGHT_PHASES, PHASE_NAMES, statusOf, type LegacyFields, type Phase } from '#domain/tasks/phase';
import type { Task, VideoTask } from '#domain/tasks/task';
import { submissionState } from '#domain/tasks/describe-task';

const processing = { status: 'processing' as const, seq: 4 };

describe('a task written before phases: its phase from its fields', () => {
  it.each<[string, LegacyFields, Phase]>([
    ['completed', { status: 'completed', seq: 4, providerJobId: 'j' }, 'completed'],
    ['failed', { status: 'failed', seq: 4, unsent: true }, 'failed'],
    ['failed before its start settled (a repaired draft)', { status: 'failed' }, 'failed'],
    ['no position: a draft', { status: 'processing', unsent: true }, 'draft'],
    ['position 0: a draft', { status: 'processing', seq: 0, unsent: true }, 'draft'],
    ['outputs recorded', { ...processing, providerJobId: 'j', pendingOutputs: ['https://p/1'] }, 'storing'],
    ['outputs without a job (never written, read the strongest fact)', { ...processing, pendingOutputs: [] }, 'storing'],
    ['a job', { ...processing, providerJobId: 'j' }, 'running'],
    ['a job and a stale queue mark', { ...processing, providerJobId: 'j', queuedAt: 't', unsent: true }, 'running'],
    ['queued', { ...processing, queuedAt: 't', unsent: true }, 'queued'],
    ['queued before the unsent mark existed', { ...processing, queuedAt: 't' }, 'queued'],
    ['unsent, not queued: claimed', { ...processing, unsent: true }, 'claimed'],
    ['sent', { ...processing, unsent: false }, 'sending'],
    ['neither sent nor unsent (before the mark existed): a job may exist', processing, 'sending'],
  ])('%s', (_label, fields, phase) => {
    expect(derivePhase(fields)).toBe(phase);
  });

  it('every phase has its public status, and the in-flight ones are processing', () => {
    expect(Object.fromEntries(PHASE_NAMES.map((phase) => [phase, statusOf(phase)]))).toEqual({
      draft: 'processing',
      claimed: 'processing',
      queued: 'processing',
      sending: 'processing',
      running: 'processing',
      storing: 'processing',
      completed: 'completed',
      delivering: 'completed',
      deleting: 'completed',
      output_deleted: 'completed',
      failed: 'failed',
    });
    expect(IN_FLIGHT_PHASES.every((phase) => statusOf(phase) === 'processing')).toBe(true);
  });
});

describe('the stored phase, and when it is trusted', () => {
  const task: VideoTask = {
    taskId: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
    partitionId: 'acc_1',
    seq: 3,
    phase: 'queued',
    status: 'processing',
    creditsUsed: 25,
    progress: 0,
    copyAttempts: 0,
    queuedAt: '2026-11-21T17:00:00.000Z',
    unsent: true,
    createdAt: '2026-11-21T17:00:00.000Z',
    updatedAt: '2026-11-21T17:00:01.000Z',
    kind: 'video',
    params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a fox', aspectRatio: '16:9', duration: 5, resolution: '720p' },
  };
  const item = () => JSON.parse(JSON.stringify(toTaskItem(task))) as Record<string, unknown>;

  it('is written with the instant it was entered, which is the item\'s updated_at', () => {
    expect(item()).toMatchObject({ phase: 'queued', phase_at: task.updatedAt, updated_at: task.updatedAt });
  });

  it('is read as stored while phase_at = updated_at, even where the old fields would say otherwise', () => {
    // A phase the old fields cannot express the same way (the fields are kept for the old code only).
    expect(fromTaskItem({ ...item(), phase: 'running', provider_name: 'replicate', provider_job_id: 'j' }).phase).toBe('running');
    expect(fromTaskItem({ ...item(), phase: 'claimed' }).phase).toBe('claimed');
  });

  it('is judged again from the fields once the code before phases changed the item (updated_at moved on)', () => {
    // That code's claimQueued: REMOVE queued_at, SET updated_at.
    const claimed: Record<string, unknown> = { ...item(), updated_at: '2026-11-21T17:00:05.000Z' };
    delete claimed.queued_at;
    expect(fromTaskItem(claimed)).toMatchObject({ phase: 'claimed', status: 'processing' });
  });

  it('is derived when absent, and the public status follows the phase', () => {
    const { phase: _p, phase_at: _a, ...legacy } = item();
    expect(fromTaskItem(legacy).phase).toBe('queued');
    expect(fromTaskItem({ ...legacy, status: 'completed', output_urls: ['https://o/1'] })).toMatchObject({ phase: 'completed', status: 'completed' });
  });

  it('refuses an unknown phase', () => {
    expect(() => fromTaskItem({ ...item(), phase: 'hibernating' })).toThrow(/phase/);
  });
});

describe("the admin CLI's word for a task's submission, by phase", () => {
  const task = (phase: Phase, provider?: { name: string; jobId: string }) => ({ phase, ...(provider && { provider }) }) as Task;
  it.each<[Phase, string]>([
    ['draft', 'not sent yet'],
    ['claimed', 'not sent yet'],
    ['queued', 'queued'],
    ['sending', 'sent, answer not known'],
    ['failed', 'none'],
  ])('%s: %s', (phase, state) => {
    expect(submissionState(task(phase))).toBe(state);
  });
  it('any phase with a job: job recorded', () => {
    expect(submissionState(task('running', { name: 'p', jobId: 'j' }))).toBe('job recorded');
    expect(submissionState(task('completed', { name: 'p', jobId: 'j' }))).toBe('job recorded');
  });
});
