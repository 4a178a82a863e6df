import { ReferenceImages } from '#adapters/reference-images';
import { webhookDestinations } from '#adapters/webhook-destinations';
import { destinationLoopback } from '#config/output-delivery';
import type { QuoteDeps } from '#domain/tasks/quote';
import { appMediaStorage } from './media';
import { stores } from './stores';

let current: QuoteDeps | undefined;

/** What a quote reads: the account, and our own reference files' first bytes (as a start checks them). */
export function quoteDeps(): QuoteDeps {
  current ??= { accounts: stores().accounts, references: new ReferenceImages(appMediaStorage()), destinations: webhookDestinations({ allowLoopback: destinationLoopback() }) };
  return current;
}
