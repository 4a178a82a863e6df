import { composeLifecycle, type LifecycleParts } from '#app-context/compose';
import { buildCopyWorker } from '#app-context/copy-worker';
import { copyQueueFor } from '#app-context/lifecycle';
import { InProcessCopyQueue } from '#adapters/in-process-copy-queue';
import { CounterBudget } from '#domain/providers/budget';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { DEFAULT_LIFECYCLE_SETTINGS } from '#domain/tasks/lifecycle/deps';
import type { CopyRequest } from '#domain/tasks/ports';
import { createMemoryStores, MemoryCopyQueue, MemoryMediaStore } from '#test-support/memory-stores';
import { ScriptedProvider } from '#test-support/scripted-provider';

/** The one place the task use cases' dependencies are assembled (functions/app-context/compose.ts). */
function parts(overrides: Partial<LifecycleParts> = {}): LifecycleParts {
  const stores = createMemoryStores();
  return {
    stores,
    providers: { provider: new ScriptedProvider() },
    media: new MemoryMediaStore(),
    references: { whyRefused: async () => undefined },
    destinations: { whyRefused: () => undefined },
    copies: new MemoryCopyQueue(),
    submissions: { send: async () => undefined },
    budget: new CounterBudget(stores.rates),
    events: { ended: async () => undefined },
    telemetry: SILENT_TELEMETRY,
    clock: () => new Date('2026-03-01T12:00:00.000Z'),
    realTime: () => 0,
    ...overrides,
  };
}

describe('composeLifecycle', () => {
  it('assembles the ports, its settings over the defaults, and leaves out what is not given', () => {
    const given = parts({ settings: { taskTimeoutMs: 90_000 } });
    const deps = composeLifecycle(given);
    expect(deps).toMatchObject({ tasks: given.stores.tasks, callbackReceipts: given.stores.callbackReceipts, copyQueue: given.copies, submissions: given.submissions });
    expect(deps.settings).toEqual({ ...DEFAULT_LIFECYCLE_SETTINGS, taskTimeoutMs: 90_000 });
    for (const absent of ['testProvider', 'otherProviders', 'routes', 'circuits', 'thumbnails', 'callbackUrl']) expect(deps).not.toHaveProperty(absent);
    // Each composition has its own settings: a test tuning one leaves the defaults alone.
    deps.settings.checkIntervalMs = 0;
    expect(DEFAULT_LIFECYCLE_SETTINGS.checkIntervalMs).toBe(2_000);
  });

  it("asks jobs to call back at the API's base URL, with the task's token", () => {
    const deps = composeLifecycle(parts({ callbackBaseUrl: 'https://api.example.com/api/v1/' }));
    const task = { partitionId: 'acc_1', taskId: 'vid_1' } as Parameters<NonNullable<typeof deps.callbackUrl>>[0];
    expect(deps.callbackUrl?.(task, 'replicate', 'tok en')).toBe('https://api.example.com/api/v1/provider-callbacks/replicate/acc_1/vid_1?token=tok%20en');
  });
});

describe('the copy worker and the copy queue', () => {
  it('the copy worker makes thumbnails and asks for no copies; the others have no thumbnails', async () => {
    const { copies: _copies, ...ports } = parts();
    const worker = buildCopyWorker(ports, { open: async () => undefined, put: async () => '' }, '/opt/bin/ffmpeg');
    expect(worker.thumbnails).toBeDefined();
    await expect(worker.copyQueue.enqueue({ accountId: 'acc_1', taskId: 'vid_1' })).rejects.toThrow('The copy worker asks for no copies');
    expect(composeLifecycle(parts())).not.toHaveProperty('thumbnails');
  });

  it('without a copy worker function, copies run in this process by the function given', async () => {
    const copied: CopyRequest[] = [];
    const queue = copyQueueFor({ region: 'local' }, async (request) => void copied.push(request));
    expect(queue).toBeInstanceOf(InProcessCopyQueue);
    await queue.enqueue({ accountId: 'acc_1', taskId: 'vid_1' });
    await (queue as InProcessCopyQueue).drain();
    expect(copied).toEqual([{ accountId: 'acc_1', taskId: 'vid_1' }]);
    // With one, the Lambda client is built on the first copy, not here.
    expect(copyQueueFor({ region: 'local', copyWorkerFunction: 'vidgen-dev-copy-output' }, async () => undefined)).not.toBeInstanceOf(InProcessCopyQueue);
  });
});
