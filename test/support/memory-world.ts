import type { DeliveryRef } from '#domain/tasks/delivery';
import { webhookDestinations } from '#adapters/webhook-destinations';
import type { Account } from '#domain/accounts/account';
import { createAccount } from '#domain/accounts/account-admin';
import { ledgerSum } from '#domain/accounts/ledger';
import { composeLifecycle } from '#app-context/compose';
import type { StartRequest } from '#domain/tasks/start-task';
import type { ImageParams, VideoParams } from '#domain/catalogue/params';
import type { Task } from '#domain/tasks/task';
import { copyRequested } from '#domain/tasks/lifecycle/outputs';
import type { SubmissionRequest } from '#domain/tasks/ports';
import { CounterBudget } from '#domain/providers/budget';
import { submitQueued } from '#domain/tasks/submission';
import { startTask } from '#domain/tasks/start-task';
import { getTask } from '#domain/tasks/get-task';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { createMemoryStores, MemoryCopyQueue, MemoryMediaStore } from './memory-stores';
import { ScriptedProvider } from './scripted-provider';

export const VIDEO: VideoParams = {
  model: 'vid-1-5-pro',
  generationType: 'text_to_video',
  prompt: 'a lighthouse at dusk',
  aspectRatio: '16:9',
  duration: 5,
  resolution: '720p',
};

export const IMAGE: ImageParams = {
  model: 'image-2',
  prompt: 'a red kite',
  resolution: '1k',
  aspectRatio: '1:1',
  outputFormat: 'png',
};

export const video = (params: Partial<VideoParams> = {}): StartRequest => ({ kind: 'video', params: { ...VIDEO, ...params } });
export const image = (params: Partial<ImageParams> = {}): StartRequest => ({ kind: 'image', params: { ...IMAGE, ...params } });

/**
 * Everything a use case needs, in memory: the stores, a scripted provider, a result bucket,
 * a copy queue that copies right after the call (as the local stack does; `drain()` waits
 * for it) and a clock that moves only when the test says so.
 */
export function memoryWorld(start = '2026-03-01T12:00:00.000Z') {
  let now = new Date(start);
  const stores = createMemoryStores();
  const provider = new ScriptedProvider();
  const media = new MemoryMediaStore();
  const copyQueue = new MemoryCopyQueue();
  /** Every task ending published, in order; `refuseEvents` makes publication fail. */
  const published: Task[] = [];
  /** Messages sent to the submission queue, with their delays; `deliverSubmissions()` hands them to the consumer. */
  const submissions: { message: SubmissionRequest; delaySeconds: number }[] = [];
  /** Messages sent to the output delivery queue, with their delays (delivery.ts consumes them). */
  const deliveries: { message: DeliveryRef; delaySeconds: number }[] = [];
  let refuseEvents = false;
  const deps = composeLifecycle({
    stores,
    providers: { provider },
    media,
    // URL rules are the adapter's (tested on their own); here every reference is acceptable.
    references: { whyRefused: async () => undefined },
    destinations: webhookDestinations({ allowLoopback: true }),
    copies: copyQueue,
    submissions: {
      send: async (message, options) => void submissions.push({ message, delaySeconds: options?.delaySeconds ?? 0 }),
    },
    deliveries: { send: async (message, options) => void deliveries.push({ message, delaySeconds: options?.delaySeconds ?? 0 }) },
    budget: new CounterBudget(stores.rates),
    events: {
      ended: async (task) => {
        if (refuseEvents) throw new Error('event queue unreachable');
        published.push(task);
      },
    },
    telemetry: SILENT_TELEMETRY,
    clock: () => now,
    realTime: () => Date.now(),
    callbackBaseUrl: 'https://api.test/api/v1',
  });
  // What the copy-output worker does with a request: on these same deps, which tests tune (settings, budget, routes).
  copyQueue.work = (request) => copyRequested(deps, request);

  return {
    deps,
    stores,
    provider,
    media,
    copyQueue,
    published,
    submissions,
    deliveries,
    /** Delivers every queued submission message once (in order, ignoring delays); returns how many. */
    async deliverSubmissions(): Promise<number> {
      const batch = submissions.splice(0);
      for (const { message } of batch) await submitQueued(deps, message);
      return batch.length;
    },
    refuseEvents(refuse: boolean): void {
      refuseEvents = refuse;
    },
    now: () => now,
    advance(ms: number): void {
      now = new Date(now.getTime() + ms);
    },
    async newAccount(credits: number, access: Partial<Pick<Account, 'paidAccess' | 'subscriptionStatus'>> = {}): Promise<string> {
      const { account } = await createAccount({ ...stores, clock: () => now }, { credits, ...access }, now.toISOString());
      return account.accountId;
    },
    /** The balance, the ledger's sum and its entries: the two must always agree. */
    async money(accountId: string) {
      const account = await stores.accounts.get(accountId);
      const entries = await stores.ledger.listForAccount(accountId);
      return { balance: account!.credits, ledger: ledgerSum(entries), entries, kinds: entries.map((entry) => entry.kind) };
    },
  };
}

export type MemoryWorld = ReturnType<typeof memoryWorld>;

/** A video started with an output destination and driven to `delivering`: its outputs stored, its first delivery queued. */
export async function deliveringVideo(world: MemoryWorld, accountId: string): Promise<Task> {
  const started = await startTask(world.deps, accountId, { ...video(), destination: { output: { url: 'https://store.test/out.mp4?X-Amz-Signature=s', headers: {} } } });
  world.provider.onFetch(async () => ({ type: 'completed', outputUrls: [`https://provider.test/${started.taskId}.out`] }));
  world.advance(3_000);
  await getTask(world.deps, accountId, 'video', started.taskId);
  await world.copyQueue.drain();
  return started;
}
