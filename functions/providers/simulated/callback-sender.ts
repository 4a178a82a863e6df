import { signCallback } from '../signed-callback';

export interface CallbackSenderOptions {
  /** Standard Webhooks secret ("whsec_...") the receiver verifies with. */
  secret: string;
  /** Waits before the second, third... attempt of a delivery; after the last, it is dropped. */
  retryDelaysMs: readonly number[];
  /** Budget of one attempt. */
  attemptTimeoutMs: number;
  clock: () => Date;
}

/**
 * Timers and signed POSTs of one process, for a provider that calls back itself. Every timer is
 * unref'd (it never keeps a process alive on its own) and close() cancels the pending ones and
 * aborts the POSTs under way, so a test or a server that stops leaves nothing behind.
 */
export class CallbackSender {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly aborter = new AbortController();

  constructor(private readonly options: CallbackSenderOptions) {}

  get closed(): boolean {
    return this.aborter.signal.aborted;
  }

  /** Runs `task` after `ms`; cancel it with clear(). Nothing runs once closed. */
  later(ms: number, task: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) task();
    }, Math.max(0, ms));
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  clear(timer: NodeJS.Timeout | undefined): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  /**
   * POSTs `body`, signed afresh for each attempt (same webhook-id, new timestamp), until a 2xx.
   * A network error, a timeout, a 429 or a 5xx is retried after the next delay; any other answer
   * (the receiver refused this callback) is final. Throws when the callback was not delivered.
   */
  async post(url: string, messageId: string, body: string): Promise<void> {
    const { retryDelaysMs } = this.options;
    let lastProblem = '';
    for (let attempt = 0; attempt <= retryDelaysMs.length; attempt++) {
      if (attempt > 0 && !(await this.sleep(retryDelaysMs[attempt - 1] ?? 0))) break;
      if (this.closed) break;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signCallback(this.options.secret, messageId, this.options.clock(), body) },
          body,
          redirect: 'manual',
          signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(this.options.attemptTimeoutMs)]),
        });
        await response.arrayBuffer().catch(() => undefined);
        if (response.status >= 200 && response.status <= 299) return;
        lastProblem = `HTTP ${response.status}`;
        if (response.status !== 429 && response.status < 500) break;
      } catch (error) {
        lastProblem = error instanceof Error ? error.name : 'network error';
      }
    }
    throw new Error(`Callback ${messageId} to ${url} was not delivered (${this.closed ? 'sender closed' : lastProblem}).`);
  }

  /** Cancels every pending timer and aborts the POSTs under way. */
  close(): void {
    this.aborter.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** Resolves true after `ms`, or false at once if the sender is closed meanwhile. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const { signal } = this.aborter;
      const onAbort = () => {
        this.clear(timer);
        resolve(false);
      };
      const timer = this.later(ms, () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
