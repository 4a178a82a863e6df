import { ApiError } from '#client';
import { describeIdentityError, IdentityError } from './auth/cognito';

/**
 * Every error code the API answers (functions/contract/errors.ts, CONTRACT.md), and the ones the
 * client assigns, in words a person understands, with what to do about it.
 */
export const ERROR_ADVICE: Readonly<Record<string, { title: string; action: string }>> = {
  validation_error: { title: 'Some input is not valid', action: 'Correct the field named in the message and try again.' },
  unauthorized: { title: 'Not signed in, or the key is not valid', action: 'Sign in again. For an API key: check it was copied whole and has not been revoked or expired.' },
  last_owner: { title: 'An account needs an owner', action: 'Make another member an owner first, then change or remove this one.' },
  forbidden: { title: 'Not allowed with these credentials', action: 'Use a key with the scope the message names, or do this from the console while signed in.' },
  insufficient_credits: { title: 'Not enough credits', action: 'Buy a credit pack on the Billing page (in test mode, add test credits there), or choose a cheaper model, shorter duration or lower resolution.' },
  paid_access_required: { title: 'This needs paid access', action: 'Make a purchase or start a subscription on the Billing page; models marked "subscription required" need an active subscription. In test mode, start a test subscription there (play money).' },
  spend_limit_exceeded: { title: "The key's monthly spend limit is reached", action: 'Raise the key\'s monthly limit on the API keys page, or wait for next month (UTC).' },
  not_found: { title: 'Not found', action: 'It may belong to the other mode (live or test), or it was deleted. Check the mode switch.' },
  idempotency_conflict: { title: 'This request repeats an earlier one with different content', action: 'Start it again: the console will send a new Idempotency-Key.' },
  payload_too_large: { title: 'The file is too large', action: 'Upload an image of at most 10 MiB.' },
  rate_limit_exceeded: { title: 'Too many requests', action: 'Wait a few seconds and try again.' },
  internal_error: { title: 'Something went wrong on our side', action: 'Try again in a moment. If it keeps happening, contact support with the request id.' },
  upstream_error: { title: 'The generation provider failed the request', action: 'Your credits were refunded. Try again; if it keeps failing, try another model.' },
  task_not_cancelable: { title: 'This task has already ended', action: 'A completed or failed task cannot be canceled. Refresh to see its result.' },
  task_not_final: { title: 'This task is still running', action: 'Its outputs can be deleted once it has completed or failed and any delivery to your storage has ended. Wait for it to finish, then try again.' },
  method_not_allowed: { title: 'This method is not allowed here', action: 'The MCP endpoint takes POST only; point an MCP client at it rather than a browser.' },
  network_error: { title: 'The API could not be reached', action: 'Check your connection, then try again.' },
  // Why a task failed (a task's `error.code`).
  content_rejected: { title: 'The provider rejected the content', action: 'Change the prompt or the reference image. Your credits were refunded.' },
  timeout: { title: 'The task took too long', action: 'Your credits were refunded. Try again.' },
  canceled: { title: 'Canceled', action: 'The task was canceled and refunded.' },
};

/** Codes whose remedy is on the Billing page: wherever they are shown, they link to it. */
export const BILLING_LINK = { to: '/billing', label: 'Go to Billing' } as const;
const BILLING_ERROR_CODES: ReadonlySet<string> = new Set(['paid_access_required', 'insufficient_credits']);

/** The console page that fixes `code`, if one does. */
export function remedyLink(code: string | undefined): typeof BILLING_LINK | undefined {
  return code && BILLING_ERROR_CODES.has(code) ? BILLING_LINK : undefined;
}

/** A session refused for its role in the account, or for not being a member: what to do instead of fixing a key. */
function roleAdvice(message: string): string | undefined {
  if (/^Your role in /.test(message) || /^Only an owner /.test(message)) return 'Ask an owner or admin of the account for a role that may, or choose another account at the top.';
  if (/not a member of /.test(message)) return 'Choose another account at the top.';
  return undefined;
}

export interface DescribedError {
  title: string;
  message: string;
  action: string;
  /** A console page that fixes it (e.g. Billing for `insufficient_credits`). */
  link?: typeof BILLING_LINK;
  code?: string;
  requestId?: string;
}

export function describeError(error: unknown): DescribedError {
  if (error instanceof ApiError) {
    const advice = ERROR_ADVICE[error.code] ?? { title: `Error (${error.code})`, action: 'Try again; contact support with the request id if it persists.' };
    const link = remedyLink(error.code);
    // The API says how long its rate window has left (Retry-After): say it in the advice.
    const action =
      error.code === 'rate_limit_exceeded' && error.retryAfter !== undefined
        ? `Wait ${error.retryAfter} seconds and try again.`
        : (error.code === 'forbidden' && roleAdvice(error.message)) || advice.action;
    return { ...advice, action, message: error.message, code: error.code, ...(error.requestId && { requestId: error.requestId }), ...(link && { link }) };
  }
  if (error instanceof IdentityError) return { title: 'Sign-in service', message: describeIdentityError(error), action: '', code: error.type };
  return { title: 'Something went wrong', message: error instanceof Error ? error.message : String(error), action: 'Reload the page and try again.' };
}
