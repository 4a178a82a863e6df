import { medianOfRecent } from '#adapters/dynamodb/task-durations';
import type { Task } from '#domain/tasks/task';
import { timingOf } from '#domain/tasks/timing';
import { VIDEO } from '#test-support/memory-world';

/** The rules of docs/tasks.md "Queue position and estimate", on a fixed clock. */
const CREATED = '2026-03-01T12:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(CREATED) + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();

function task(fields: Partial<Task>): Task {
  return {
    kind: 'video',
    taskId: 'vid_01M8EJ46BJ1REXDB5YNFCW521Q',
    partitionId: 'acc_1',
    seq: 1,
    phase: 'running',
    status: 'processing',
    creditsUsed: 25,
    progress: 0,
    copyAttempts: 0,
    params: VIDEO,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...fields,
  } as Task;
}

describe('timingOf', () => {
  it('gives final tasks no timing at all', () => {
    expect(timingOf(task({ phase: 'completed', status: 'completed' }), 60_000, at(10))).toBeUndefined();
    expect(timingOf(task({ phase: 'failed', status: 'failed' }), 60_000, at(10))).toBeUndefined();
  });

  it('is null without history, whatever the phase', () => {
    expect(timingOf(task({ phase: 'claimed' }), null, at(1))).toEqual({ queuePosition: null, estimatedCompletionAt: null });
    expect(timingOf(task({ queuePosition: 3 }), null, at(1))).toEqual({ queuePosition: 3, estimatedCompletionAt: null });
  });

  it('places a task: our queue while queued, the provider report while running, 0 while storing, unknown while the create goes out', () => {
    expect(timingOf(task({ phase: 'queued' }), 60_000, at(1), 4)?.queuePosition).toBe(4);
    expect(timingOf(task({ phase: 'sending' }), 60_000, at(1))?.queuePosition).toBeNull();
    expect(timingOf(task({ phase: 'running' }), 60_000, at(1))?.queuePosition).toBeNull();
    expect(timingOf(task({ phase: 'running', queuePosition: 2 }), 60_000, at(1))?.queuePosition).toBe(2);
    expect(timingOf(task({ phase: 'storing', pendingOutputs: ['x'] }), 60_000, at(1))?.queuePosition).toBe(0);
  });

  it('expects the typical duration from the start, never before now', () => {
    expect(timingOf(task({ phase: 'sending' }), 60_000, at(5))?.estimatedCompletionAt).toBe(iso(60));
    // Late already: the estimate is now, not in the past.
    expect(timingOf(task({}), 60_000, at(90))?.estimatedCompletionAt).toBe(iso(90));
  });

  it('waits one typical run per job ahead in a queue', () => {
    expect(timingOf(task({ queuePosition: 2 }), 60_000, at(10))?.estimatedCompletionAt).toBe(iso(10 + 3 * 60));
    expect(timingOf(task({ phase: 'queued' }), 60_000, at(10), 1)?.estimatedCompletionAt).toBe(iso(10 + 2 * 60));
  });

  it("tightens with the provider's progress: half done in 40 s of a typical 60 s ends at 70 s", () => {
    const reported = task({ progress: 50, queuePosition: 0, reportedAt: iso(40) });
    // rest = 40 s × 50/50 = 40 s, weighed 0.5 against the typical end's 20 s left: 40 + 20 + 10.
    expect(timingOf(reported, 60_000, at(41))?.estimatedCompletionAt).toBe(iso(70));
    // Nearly done (90% at 90 s, 30 s late): the provider's pace wins, 10 s left weighed 0.9.
    const nearly = task({ progress: 90, queuePosition: 0, reportedAt: iso(90) });
    expect(timingOf(nearly, 60_000, at(91))?.estimatedCompletionAt).toBe(iso(99));
  });
});

describe('medianOfRecent', () => {
  const now = new Date('2026-03-02T12:00:00.000Z');
  const sample = (ms: number, hoursAgo: number) => ({ ms, at: new Date(now.getTime() - hoursAgo * 3_600_000).toISOString() });

  it('needs three samples of the last day', () => {
    expect(medianOfRecent([sample(1000, 1), sample(2000, 2)], now)).toBeNull();
    expect(medianOfRecent([sample(1000, 1), sample(2000, 2), sample(9000, 30)], now)).toBeNull();
    expect(medianOfRecent([sample(1000, 1), sample(5000, 2), sample(2000, 3)], now)).toBe(2000);
    expect(medianOfRecent([sample(1000, 1), sample(5000, 2), sample(2000, 3), sample(4000, 4)], now)).toBe(3000);
  });
});
