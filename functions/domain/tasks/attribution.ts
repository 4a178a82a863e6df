import { ValidationError } from '../shared/errors';
import type { SpendingKey } from '../accounts/spending-key';

/**
 * Who a task is for, on a platform that resells generation (CONTRACT.md, "End users and
 * metadata"): the caller's own user and free-form string metadata, stored with the task and
 * echoed in every view, event and MCP result. Never sent to a provider.
 */
export interface Attribution {
  /** The caller's opaque id of its own user; absent when none was given. */
  endUser?: string;
  /** At most 16 string values; absent (never `{}`) when none were given. */
  metadata?: Readonly<Record<string, string>>;
}

/**
 * The attribution as a start request carries it: each field only when given and not empty, so
 * a request without them hashes (and is stored) exactly as it did before they existed.
 */
export function attributionOf(endUser: string | undefined, metadata: Readonly<Record<string, string>> | undefined): Attribution {
  return {
    ...(endUser !== undefined && { endUser }),
    ...(metadata !== undefined && Object.keys(metadata).length > 0 && { metadata }),
  };
}

/**
 * A key with a limit per end user can only count a start against its end user: one that names
 * none is a 400, before any I/O (the start and the quote alike).
 */
export function requireEndUser(key: SpendingKey | undefined, endUser: string | undefined): void {
  if (key?.endUserMonthlySpendLimit === undefined || endUser !== undefined) return;
  throw new ValidationError(
    'end_user: this API key has an end_user_monthly_spend_limit, so every start through it must name the end user it is for.',
    'end_user',
  );
}
