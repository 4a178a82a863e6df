import fc from 'fast-check';
import { createAccount } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { chargeEntry, refundEntry } from '#domain/tasks/charges';
import { endsTask, IN_FLIGHT_PHASES, isFinal, PHASE_NAMES, statusOf, type InFlightPhase, type Phase } from '#domain/tasks/phase';
import type { Task, TaskErrorCode } from '#domain/tasks/task';
import { move, TRANSITIONS, type TaskEvent, type TaskPatch, type TransitionGuard } from '#domain/tasks/transitions';
import { newTaskId } from '#domain/shared/ids';
import { createMemoryStores } from '#test-support/memory-stores';
import { IMAGE, VIDEO } from '#test-support/memory-world';

/**
 * The task state machine as a property (issue 32, design §2 and C8): random sequences of events,
 * some of them racing in pairs, applied through `move` to tasks in the in-memory store (which
 * checks phase and guards as the DynamoDB adapter's one conditional write does). After every step:
 * exactly one phase per task, its status from it, a final phase never left, a refund at most once
 * and only with a failure, the events admitted exactly those the table lists for the phase (and
 * whose guards hold), and the money exact (balance = ledger = grant - charges + refunds).
 */

const EVENTS = Object.keys(TRANSITIONS) as TaskEvent[];
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const GRANT = 10_000;
/** A copy holds the outputs this long before another may take them (the guard's lease). */
const COPY_LEASE_MS = 10_000;
const FAILURE_CODES: Partial<Record<TaskEvent, TaskErrorCode>> = { fail: 'upstream_error', lose: 'internal_error', cancel: 'canceled', timeout: 'timeout' };

/** One step: an event on one task, from what was just read; with a rival, a second event on it from the same read, at once. */
interface Step {
  task: number;
  event: TaskEvent;
  rival?: TaskEvent;
  advanceMs: number;
  /** The figure a progress event reports (refused unless above the stored one). */
  progress: number;
  /** The job an accept names (refused if the task already has another). */
  jobId: string;
  /** A queue from a stale read of `sentAt` (refused: only the holder who sent re-queues). */
  staleSentAt: boolean;
}

const event = fc.constantFrom(...EVENTS);
const step: fc.Arbitrary<Step> = fc.record(
  {
    task: fc.nat({ max: 2 }),
    event,
    rival: event,
    advanceMs: fc.integer({ min: 0, max: 20_000 }),
    progress: fc.integer({ min: 1, max: 99 }),
    jobId: fc.constantFrom('sim_job_a', 'sim_job_b'),
    staleSentAt: fc.boolean(),
  },
  { requiredKeys: ['task', 'event', 'advanceMs', 'progress', 'jobId', 'staleSentAt'] },
);
const scenario = fc.record({
  // Where each task starts: any phase a start or a repair can leave a task in flight.
  tasks: fc.array(fc.record({ phase: fc.constantFrom<InFlightPhase>(...IN_FLIGHT_PHASES), price: fc.integer({ min: 1, max: 60 }), video: fc.boolean() }), {
    minLength: 1,
    maxLength: 3,
  }),
  steps: fc.array(step, { minLength: 1, maxLength: 25 }),
});

const iso = (ms: number) => new Date(ms).toISOString();
/** How long a delivery attempt holds its claim, as the worker takes it. */
const DELIVERY_LEASE_MS = 60_000;
/** The phases with a work list: in flight, the deliveries (once announced) and the deletions under way. */
const LISTED = [...IN_FLIGHT_PHASES, 'delivering', 'deleting'] as const;

/** The guards the event's rule names, as its caller builds them from the task it read. */
function guardFor(e: TaskEvent, read: Task, s: Step, now: number): TransitionGuard {
  const rule = TRANSITIONS[e] as { guards?: readonly (keyof TransitionGuard)[] };
  const names = rule.guards ?? [];
  const guard: TransitionGuard = {};
  for (const name of names) {
    if (name === 'sentAt') guard.sentAt = s.staleSentAt ? iso(now - 1) : (read.sentAt ?? null);
    if (name === 'jobId') guard.jobId = s.jobId;
    if (name === 'checkedBefore') guard.checkedBefore = iso(now);
    if (name === 'progressBelow') guard.progressBelow = s.progress;
    if (name === 'copyClaimedBefore') guard.copyClaimedBefore = iso(now - COPY_LEASE_MS);
    if (name === 'announced') guard.announced = true;
    if (name === 'deliveryAttempts') guard.deliveryAttempts = s.staleSentAt ? (read.delivery?.attempts ?? 0) + 1 : (read.delivery?.attempts ?? 0);
    if (name === 'deliveryFree') guard.deliveryFree = iso(now);
    if (name === 'stillDelivering' && read.phase === 'delivering') guard.stillDelivering = true;
  }
  return guard;
}

/** The patch each event's caller writes (transitions.ts, the table's right-hand column). */
function patchFor(e: TaskEvent, read: Task, s: Step, now: number): TaskPatch {
  const at = iso(now);
  const guard = guardFor(e, read, s, now);
  const code = FAILURE_CODES[e];
  if (code) {
    const error = { code, message: `ended by ${e}` };
    return { at, set: { error, completedAt: at }, remove: ['pendingOutputs', 'copyClaimedAt'], refund: refundEntry(read, at, error), guard };
  }
  const attempts = read.delivery?.attempts ?? 0;
  const patches: Record<Exclude<TaskEvent, 'fail' | 'lose' | 'cancel' | 'timeout'>, TaskPatch> = {
    queue: { at, set: { queuedAt: at, submitAttempts: (read.submitAttempts ?? 0) + 1 } },
    claim: { at, remove: ['queuedAt'] },
    send: { at, set: { sentAt: at } },
    accept: { at, set: { provider: { name: 'simulated', jobId: s.jobId }, lastCheckedAt: at }, remove: ['queuedAt'] },
    check: { set: { lastCheckedAt: at } },
    progress: { set: { progress: s.progress } },
    outputs: { at, set: { pendingOutputs: [`https://provider.test/${s.jobId}.png`] } },
    copyClaim: { set: { copyClaimedAt: at } },
    copyFailed: { countCopyFailure: true, remove: ['copyClaimedAt'] },
    complete: { at, set: { outputUrls: [`https://media.test/${read.taskId}.png`], completedAt: at }, remove: ['pendingOutputs', 'copyClaimedAt'] },
    announce: { announced: true },
    deleteOutputs: { at, set: { outputDeletedAt: at } },
    purge: { at, remove: ['outputUrls', 'thumbnailUrl'] },
    markDeleted: { set: { outputDeletedAt: at } },
    completeForDelivery: { at, set: { outputUrls: [`https://media.test/${read.taskId}.png`], completedAt: at, delivery: { status: 'pending', attempts: 0 } }, remove: ['pendingOutputs', 'copyClaimedAt'] },
    claimDelivery: { set: { delivery: { status: 'pending', attempts, claimedUntil: iso(now + DELIVERY_LEASE_MS) } } },
    deliveryFailed: { set: { delivery: { status: 'pending', attempts: attempts + 1, lastError: 'HTTP 500' } } },
    deliver: { at, set: { delivery: { status: 'delivered', attempts: attempts + 1, deliveredAt: at } }, remove: ['destination'] },
    deliverAndDrop: { at, set: { delivery: { status: 'delivered', attempts: attempts + 1, deliveredAt: at }, outputDeletedAt: at }, remove: ['destination'] },
    giveUpDelivery: { at, set: { delivery: { status: 'failed', attempts: attempts + 1, lastError: 'HTTP 403', eventOwed: true } }, remove: ['destination'] },
    deliveryAnnounced: { set: { delivery: { status: read.delivery?.status ?? 'failed', attempts } } },
  };
  return { ...patches[e as keyof typeof patches], guard };
}

/** What the guards promise (TransitionGuard's comments), stated apart from `admits`. */
function guardHolds(read: Task, guard: TransitionGuard): boolean {
  if (guard.sentAt !== undefined && (read.sentAt ?? null) !== guard.sentAt) return false;
  if (guard.jobId !== undefined && read.provider !== undefined && read.provider.jobId !== guard.jobId) return false;
  if (guard.checkedBefore !== undefined && read.lastCheckedAt !== undefined && read.lastCheckedAt > guard.checkedBefore) return false;
  if (guard.progressBelow !== undefined && !(read.progress < guard.progressBelow)) return false;
  if (guard.copyClaimedBefore !== undefined && read.copyClaimedAt !== undefined && read.copyClaimedAt > guard.copyClaimedBefore) return false;
  if (guard.announced && read.unannounced) return false;
  if (guard.deliveryAttempts !== undefined && (read.delivery?.attempts ?? 0) !== guard.deliveryAttempts) return false;
  if (guard.deliveryFree !== undefined && read.delivery?.claimedUntil !== undefined && read.delivery.claimedUntil >= guard.deliveryFree) return false;
  if (guard.stillDelivering && read.phase !== 'delivering') return false;
  return true;
}

/** The phase an event leaves a task in, by the table alone (refused: where it was). */
function after(phase: Phase, e: TaskEvent): Phase {
  const rule = TRANSITIONS[e];
  if (!(rule.from as readonly Phase[]).includes(phase)) return phase;
  return rule.to === 'same' ? phase : rule.to;
}

async function collect(lists: AsyncIterable<{ taskId: string }>[]): Promise<string[]> {
  const ids: string[] = [];
  for (const list of lists) for await (const ref of list) ids.push(ref.taskId);
  return ids;
}

describe('the task state machine (property)', () => {
  it('keeps its invariants under any sequence of events, racing or not', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ tasks: starts, steps }) => {
        const stores = createMemoryStores();
        let now = T0;
        const { account } = await createAccount({ ...stores, clock: () => new Date(now) }, { credits: GRANT }, iso(now));
        const accountId = account.accountId;

        const tasks: Task[] = [];
        for (const [index, start] of starts.entries()) {
          const kind = start.video ? 'video' : 'image';
          const taskId = newTaskId(kind);
          const draft = {
            kind,
            params: start.video ? VIDEO : IMAGE,
            taskId,
            partitionId: accountId,
            phase: start.phase,
            status: statusOf(start.phase),
            creditsUsed: start.price,
            progress: 0,
            copyAttempts: 0,
            createdAt: iso(now),
            updatedAt: iso(now),
          } as Omit<Task, 'seq'>;
          // Seeded in its phase through the store's start and settle, as a start writes it.
          const started = await stores.tasks.start({ task: draft, charge: chargeEntry(draft) });
          if (started.type !== 'started') throw new Error(`the start of task ${index} was refused: ${JSON.stringify(started.refusals)}`);
          tasks.push(await stores.tasks.settlePositions(started.task));
        }
        /** Per task: its phase by the table, whether its ending is still to be announced. */
        const model = tasks.map((task) => ({ phase: task.phase, unannounced: false }));

        for (const s of steps) {
          now += s.advanceMs;
          const index = s.task % tasks.length;
          const read = (await stores.tasks.get(accountId, tasks[index]!.taskId))!;
          const was = model[index]!;
          expect(read.phase).toBe(was.phase);
          const refundsBefore = (await stores.ledger.listForAccount(accountId)).filter((entry) => entry.kind === 'refund').length;

          const patch = patchFor(s.event, read, s, now);
          if (s.rival === undefined) {
            const moved = await move(stores.tasks, read, s.event, patch);
            // Admitted exactly when the table lists the phase for the event and the guards hold.
            const admitted = (TRANSITIONS[s.event].from as readonly Phase[]).includes(read.phase) && guardHolds(read, patch.guard ?? {});
            expect({ event: s.event, from: read.phase, admitted: moved !== undefined }).toEqual({ event: s.event, from: read.phase, admitted });
            const phase = admitted ? after(read.phase, s.event) : read.phase;
            if (moved) expect(moved.phase).toBe(phase);
            model[index] = {
              phase,
              unannounced: (was.unannounced || (admitted && endsTask(read.phase, phase))) && !(admitted && s.event === 'announce'),
            };
          } else {
            // Two callers from the same read, at once: the store serializes them, in some order.
            const rivalPatch = patchFor(s.rival, read, s, now);
            await Promise.all([move(stores.tasks, read, s.event, patch), move(stores.tasks, read, s.rival, rivalPatch)]);
            const stored = (await stores.tasks.get(accountId, read.taskId))!;
            const reachable = [read.phase, after(read.phase, s.event), after(read.phase, s.rival), after(after(read.phase, s.event), s.rival), after(after(read.phase, s.rival), s.event)];
            expect(reachable).toContain(stored.phase);
            // Announcements are told by the listing below, which the model then follows.
            const listed = await collect(stores.tasks.listUnannounced());
            model[index] = { phase: stored.phase, unannounced: listed.includes(read.taskId) };
            if (endsTask(read.phase, stored.phase) && !(s.event === 'announce' || s.rival === 'announce')) expect(model[index]!.unannounced).toBe(true);
          }

          // A refund only with a failure event admitted in this step, and at most one per step.
          const entries = await stores.ledger.listForAccount(accountId);
          const refunds = entries.filter((entry) => entry.kind === 'refund');
          const failing = [s.event, s.rival].some((e) => e !== undefined && 'refund' in TRANSITIONS[e]);
          expect(refunds.length - refundsBefore).toBeLessThanOrEqual(failing ? 1 : 0);

          // Invariants of every task after every step.
          const inFlight = new Map<Phase, string[]>();
          for (const phase of LISTED) inFlight.set(phase, await collect(stores.tasks.listInFlight(phase)));
          const unannounced = await collect(stores.tasks.listUnannounced());
          let expectedBalance = GRANT;
          for (const [i, task] of tasks.entries()) {
            const stored = (await stores.tasks.get(accountId, task.taskId))!;
            const { phase } = model[i]!;
            expect(stored.phase).toBe(phase);
            expect(PHASE_NAMES).toContain(stored.phase);
            expect(stored.status).toBe(statusOf(stored.phase));
            // Exactly one phase: listed under its own phase's work list and no other (none once final or deleted).
            const listedUnder = LISTED.filter((p) => inFlight.get(p)!.includes(task.taskId));
            const listed = (LISTED as readonly Phase[]).includes(phase) && !(phase === 'delivering' && model[i]!.unannounced);
            expect(listedUnder).toEqual(listed ? [phase] : []);
            expect(unannounced.includes(task.taskId)).toBe(model[i]!.unannounced);
            if (i === index && isFinal(was.phase)) expect(statusOf(phase)).toBe(statusOf(was.phase)); // a final status is never left
            const own = refunds.filter((entry) => entry.taskId === task.taskId);
            expect(own).toHaveLength(phase === 'failed' ? 1 : 0);
            if (phase === 'failed') expect(own[0]).toMatchObject({ amount: task.creditsUsed, reason: expect.stringMatching(/^refund: (video|image) task (canceled|failed)$/) });
            expectedBalance += -task.creditsUsed + (phase === 'failed' ? task.creditsUsed : 0);
          }
          const balance = (await stores.accounts.get(accountId))!.credits;
          expect({ balance, ledger: ledgerSum(entries) }).toEqual({ balance: expectedBalance, ledger: expectedBalance });
        }
      }),
      // Modest: a hundred walks of up to 25 steps, well under a second on an idle machine.
      { numRuns: 100 },
    );
  });

  it('admits, from each phase, exactly the events the table lists for it', async () => {
    const stores = createMemoryStores();
    const { account } = await createAccount({ ...stores, clock: () => new Date(T0) }, { credits: GRANT }, iso(T0));
    const admitted: Record<string, TaskEvent[]> = {};
    for (const phase of PHASE_NAMES) {
      admitted[phase] = [];
      for (const e of EVENTS) {
        const taskId = newTaskId('image');
        const draft = { kind: 'image', params: IMAGE, taskId, partitionId: account.accountId, phase, status: statusOf(phase), creditsUsed: 1, progress: 0, copyAttempts: 0, createdAt: iso(T0), updatedAt: iso(T0) } as Omit<Task, 'seq'>;
        const started = await stores.tasks.start({ task: draft, charge: chargeEntry(draft) });
        if (started.type !== 'started') throw new Error(JSON.stringify(started.refusals));
        const seeded = await stores.tasks.settlePositions(started.task);
        const step: Step = { task: 0, event: e, advanceMs: 0, progress: 50, jobId: 'sim_job_a', staleSentAt: false };
        if (await move(stores.tasks, seeded, e, patchFor(e, seeded, step, T0 + 1))) admitted[phase].push(e);
      }
    }
    const byTable = Object.fromEntries(PHASE_NAMES.map((phase) => [phase, EVENTS.filter((e) => (TRANSITIONS[e].from as readonly Phase[]).includes(phase))]));
    expect(admitted).toEqual(byTable);
    // And the table itself: a final status is left by no event (a deletion keeps `completed`), and only failure events refund.
    for (const e of EVENTS) {
      const rule = TRANSITIONS[e];
      for (const from of (rule.from as readonly Phase[]).filter(isFinal)) expect(rule.to === 'same' ? statusOf(from) : statusOf(rule.to)).toBe(statusOf(from));
      if ('refund' in rule) expect(rule.to).toBe('failed');
    }
  });
});
