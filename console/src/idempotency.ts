import { ApiError } from '#client';

/**
 * The Idempotency-Key of the start the person means. The same request sent again before an answer
 * came (a second click, a retry after a network error) goes under the same key, so the API charges
 * it once; an answer, or a change to the request, makes the next start a new one with a new key.
 */
export class StartIntent {
  #current: { request: string; key: string } | undefined;

  constructor(private readonly newKey: () => string = () => crypto.randomUUID()) {}

  /** The key for `request` (any string that is equal for equal requests). */
  keyFor(request: string): string {
    if (this.#current?.request !== request) this.#current = { request, key: this.newKey() };
    return this.#current.key;
  }

  /**
   * The start sent under `key` has ended. A task or a refusal spends the intent (the provider's
   * refusal too: it was refunded, and the API would replay it under this key). No answer, or a 5xx
   * that may have come after the task was made, leaves it standing: trying again cannot charge
   * twice. A start the person has since changed (the playground's kind switch) spends nothing.
   */
  settled(key: string, error: unknown): void {
    const unanswered = error instanceof ApiError && (error.code === 'network_error' || (error.status >= 500 && error.code !== 'upstream_error'));
    if (!unanswered && this.#current?.key === key) this.#current = undefined;
  }
}
