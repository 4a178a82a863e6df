import type { WebhookSender } from '#domain/webhooks/deliveries';
import { FetchFailedError, UnsafeUrlError, type SafeFetcher } from './safe-fetch';

/**
 * Webhook attempts through the SSRF-safe client, with the reason no answer came in the few words
 * a delivery's `last_error` shows (the status of an answer is worded by the use case).
 */
export function webhookSender(fetcher: SafeFetcher, timeoutMs: number): WebhookSender {
  return async (url, body, headers) => {
    try {
      return await fetcher.post(url, body, headers);
    } catch (error) {
      if (error instanceof UnsafeUrlError) return { error: refusalWords(error) };
      if (error instanceof FetchFailedError) return { error: failureWords(error, timeoutMs) };
      throw error;
    }
  };
}

function refusalWords(error: UnsafeUrlError): string {
  return error.reason === 'blocked_address' ? 'blocked: private address' : 'blocked: not a public https URL';
}

function failureWords(error: FetchFailedError, timeoutMs: number): string {
  switch (error.reason) {
    case 'timeout':
      return `timeout after ${timeoutMs / 1000} s`;
    case 'dns':
      return 'host name not found';
    case 'network':
      return networkWords(error.code);
    default:
      return 'could not send';
  }
}

/** Node's error codes for what went wrong on the way, grouped as a receiver's owner would fix them. */
function networkWords(code: string | undefined): string {
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (code === 'ETIMEDOUT') return 'connection timed out';
  if (code !== undefined && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code)) return 'TLS certificate not accepted';
  if (code !== undefined && /SSL|TLS|EPROTO/.test(code)) return 'TLS handshake failed';
  return 'connection failed';
}
