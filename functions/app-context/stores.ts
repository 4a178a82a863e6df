import { DynamoAccountStore } from '#adapters/dynamodb/account-repository';
import { DynamoAuditLog } from '#adapters/dynamodb/audit/audit-put';
import { DynamoApiKeyStore } from '#adapters/dynamodb/api-key-repository';
import { DynamoBillingStore } from '#adapters/dynamodb/billing-repository';
import { DynamoCallbackReceipts } from '#adapters/dynamodb/callback-receipt-repository';
import { DynamoCircuitStore } from '#adapters/dynamodb/circuit-repository';
import { createDb, type Db } from '#adapters/dynamodb/dynamo-client';
import { DynamoHolderStore } from '#adapters/dynamodb/holder-repository';
import { DynamoTeamStore } from '#adapters/dynamodb/team-repository';
import { DynamoInvitationStore } from '#adapters/dynamodb/invitation-repository';
import { DynamoIdempotencyStore } from '#adapters/dynamodb/idempotency-repository';
import { DynamoLedgerStore } from '#adapters/dynamodb/ledger-repository';
import { DynamoRateCounter } from '#adapters/dynamodb/rate-counter-repository';
import { DynamoTaskDurations } from '#adapters/dynamodb/task-durations';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { DynamoUploadPublications } from '#adapters/dynamodb/upload-publication-repository';
import { DynamoUsageReader } from '#adapters/dynamodb/usage/usage-reader';
import type { TableConfig } from '#config/service';
import type { AccountStore, ApiKeyStore, HolderStore, InvitationStore, LedgerStore, TeamStore } from '#domain/accounts/ports';
import type { BillingStore } from '#domain/billing/ports';
import type { CallbackReceipts, IdempotencyStore, TaskDurations, TaskStore } from '#domain/tasks/ports';
import type { UploadPublications } from '#domain/uploads/ports';
import { modeAwareAccounts } from '#domain/accounts/partition-accounts';
import type { CircuitStore } from '#domain/providers/ports';
import type { RateCounter } from '#domain/shared/counter';
import type { AuditLog } from '#domain/shared/ports';
import type { UsageReader } from '#domain/usage/ports';
import type { Telemetry } from '#domain/shared/telemetry';
import { powertoolsTelemetry } from '#observability/telemetry';
import { appTableConfig } from './config';

/** Every store, each behind its port: what handlers that only read and write the table need. */
export interface Stores {
  accounts: AccountStore;
  apiKeys: ApiKeyStore;
  holders: HolderStore;
  /** An account's members (issue 36). */
  team: TeamStore;
  /** Invitations to join an account (issue 36). */
  invitations: InvitationStore;
  ledger: LedgerStore;
  rateCounter: RateCounter;
  tasks: TaskStore;
  /** How long tasks take per provider and model (the estimate's history); absent: no estimates. */
  durations?: TaskDurations;
  idempotency: IdempotencyStore;
  uploadPublications: UploadPublications;
  callbackReceipts: CallbackReceipts;
  /** Providers' circuit breakers, shared by every function. */
  circuits: CircuitStore;
  billing: BillingStore;
  /** Each account's audit log (issue 36): read here; the other stores write it with their changes. */
  auditLog: AuditLog;
  /** The usage roll-ups (GET /usage); the task store writes them with each charge and refund. */
  usage: UsageReader;
  /** What the stores' use cases stamp their changes with: the one real clock (the domain reads none). */
  clock: () => Date;
}

export function buildDb(config: TableConfig): Db {
  return createDb({
    tableName: config.tableName,
    region: config.region,
    ...(config.dynamodbEndpoint && { endpoint: config.dynamodbEndpoint }),
  });
}

/** `telemetry` hears what a store notices but cannot answer for (a note left behind by a start). */
export function buildStores(db: Db, telemetry: Telemetry): Stores {
  const clock = () => new Date();
  return {
    // Test keys' scopes answer with their own balance, and the live account's access or their test subscription.
    accounts: modeAwareAccounts(new DynamoAccountStore(db), clock),
    apiKeys: new DynamoApiKeyStore(db),
    holders: new DynamoHolderStore(db),
    team: new DynamoTeamStore(db),
    invitations: new DynamoInvitationStore(db),
    ledger: new DynamoLedgerStore(db),
    rateCounter: new DynamoRateCounter(db),
    tasks: new DynamoTaskStore(db, telemetry),
    durations: new DynamoTaskDurations(db),
    idempotency: new DynamoIdempotencyStore(db),
    uploadPublications: new DynamoUploadPublications(db),
    callbackReceipts: new DynamoCallbackReceipts(db),
    circuits: new DynamoCircuitStore(db),
    billing: new DynamoBillingStore(db),
    auditLog: new DynamoAuditLog(db),
    usage: new DynamoUsageReader(db),
    clock,
  };
}

let db: Db | undefined;
let current: Stores | undefined;

/** This process's DynamoDB client and table (one per cold start, sockets reused). */
export function appDb(): Db {
  db ??= buildDb(appTableConfig());
  return db;
}

export function stores(): Stores {
  current ??= buildStores(appDb(), powertoolsTelemetry);
  return current;
}

let identity: Pick<Stores, 'apiKeys' | 'holders'> | undefined;

/**
 * Only the stores the authorizer reads (keys, holders), built without the others: it runs on
 * every request's cold path, so its bundle carries no other store's code (test/cdk/bundles).
 */
export function identityStores(): Pick<Stores, 'apiKeys' | 'holders'> {
  identity ??= current ?? { apiKeys: new DynamoApiKeyStore(appDb()), holders: new DynamoHolderStore(appDb()) };
  return identity;
}
