import type { ExpiryDeps } from '#domain/tasks/retention';
import { outputDeletion } from './output-deletion';
import { retentionDayMs } from './retention';
import { stores } from './stores';

/** What the sweeper's expiry run needs (apart from retention.ts, which the read routes bundle). */
export function expiry(): ExpiryDeps {
  return { ...outputDeletion(), accounts: stores().accounts, dayMs: retentionDayMs(), realTime: Date.now };
}
