import type { Readable } from 'node:stream';
import type { OutputSender, PutOutcome } from '#domain/tasks/delivery';
import type { Destination } from '#domain/tasks/destinations';
import { FetchFailedError, type SafeFetcher, UnsafeUrlError } from './safe-fetch';

/** An object of ours, opened for streaming: its bytes and its size (a presigned PUT needs Content-Length). */
export type OpenObject = (key: string) => Promise<{ stream: Readable; size: number }>;

export interface SendLimits {
  /** No progress for this long fails the attempt (retried). */
  idleTimeoutMs: number;
  /** Ceiling of one attempt, whatever the size (under the function's own 15 minutes). */
  maxDeadlineMs: number;
}

/** 60 s plus the time at 256 KiB/s: a slower store fails the attempt (docs/storage.md). */
const MIN_RATE_BYTES_PER_MS = 256;

export const DEFAULT_SEND_LIMITS: SendLimits = { idleTimeoutMs: 30_000, maxDeadlineMs: 13 * 60_000 };

/**
 * The domain's OutputSender (delivery.ts): one GetObject of ours streamed into safe-fetch's PUT
 * (never the whole object in memory), and the answer classified: 2xx delivered; 408, 429, 5xx,
 * timeouts, connection and DNS errors retried; a redirect (never followed), another 4xx or a
 * refused address failed at once. The reasons name the status and the store's error code, never
 * the URL.
 */
export function outputSender(open: OpenObject, fetcher: Pick<SafeFetcher, 'put'>, limits: SendLimits = DEFAULT_SEND_LIMITS): OutputSender {
  return {
    async send(destination: Destination, key: string): Promise<PutOutcome> {
      const { stream, size } = await open(key);
      const deadlineMs = Math.min(limits.maxDeadlineMs, 60_000 + Math.ceil(size / MIN_RATE_BYTES_PER_MS));
      try {
        const answer = await fetcher.put(destination.url, stream, size, { ...destination.headers }, { idleTimeoutMs: limits.idleTimeoutMs, deadlineMs });
        return classify(answer.status, answer.errorCode, answer.retryAfterSeconds);
      } catch (error) {
        stream.destroy();
        if (error instanceof UnsafeUrlError) return { type: 'failed', retryable: false, reason: 'blocked: not a public address' };
        if (error instanceof FetchFailedError) return { type: 'failed', retryable: true, reason: networkReason(error) };
        throw error;
      }
    },
  };
}

function classify(status: number, code: string | undefined, retryAfterSeconds: number | undefined): PutOutcome {
  if (status >= 200 && status < 300) return { type: 'delivered' };
  const reason = `HTTP ${status}${code ? ` (${code})` : ''}`;
  if (status >= 300 && status < 400) return { type: 'failed', retryable: false, reason: `redirect not followed (HTTP ${status})` };
  const retryable = status === 408 || status === 429 || status >= 500;
  return { type: 'failed', retryable, reason, ...(retryable && retryAfterSeconds !== undefined && { retryAfterSeconds }) };
}

function networkReason(error: FetchFailedError): string {
  if (error.reason === 'timeout') return error.message; // "timeout: no progress for 30 s", "timeout after 600 s"
  if (error.reason === 'dns') return 'could not resolve host';
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return 'connection reset';
  return error.code ? `connection failed (${error.code})` : 'connection failed';
}
