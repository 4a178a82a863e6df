import { DynamoAccountDirectory } from '#adapters/dynamodb/account-directory';
import { DynamoAuditLog } from '#adapters/dynamodb/audit/audit-put';
import type { AuditLog } from '#domain/shared/ports';
import { DynamoAccountStore } from '#adapters/dynamodb/account-repository';
import { DynamoApiKeyStore } from '#adapters/dynamodb/api-key-repository';
import { DynamoCircuitStore } from '#adapters/dynamodb/circuit-repository';
import { DynamoHolderStore } from '#adapters/dynamodb/holder-repository';
import { createDb, type Db } from '#adapters/dynamodb/dynamo-client';
import { DynamoLedgerStore } from '#adapters/dynamodb/ledger-repository';
import { DynamoTaskStore } from '#adapters/dynamodb/task-repository';
import { DynamoTeamStore } from '#adapters/dynamodb/team-repository';
import type { CircuitStore } from '#domain/providers/ports';
import type { AdminStores } from '#domain/accounts/account-admin';
import { modeAwareAccounts } from '#domain/accounts/partition-accounts';
import type { AccountDirectory, HolderStore, TeamStore } from '#domain/accounts/ports';
import type { TaskStore } from '#domain/tasks/ports';
import { SILENT_TELEMETRY } from '#domain/shared/telemetry';
import { localTarget, type LocalTarget } from '../local-stack/discovery';
import { UsageError } from './errors';

/**
 * Which table the admin CLI works on. By default the running local stack (`npm start`, found
 * through its data folder whatever its ports: bin/local-stack/discovery.ts);
 * with --aws, the deployed table named by TABLE_NAME / AWS_REGION (or --table / --region),
 * using the normal AWS credential chain.
 */
export interface TargetOptions {
  aws?: boolean;
  table?: string;
  region?: string;
}

export interface AdminConnection extends AdminStores {
  db: Db;
  holders: HolderStore;
  tasks: TaskStore;
  /** Providers' circuit breakers (CIRCUIT#<provider> items). */
  circuits: CircuitStore;
  /** Every account (`account list`). */
  directory: AccountDirectory;
  /** Each account's audit log (`audit`). */
  auditLog: AuditLog;
  /** Accounts' members (`member add`, `member remove`). */
  team: TeamStore;
  /** The local stack aimed at, unless --aws. */
  local?: LocalTarget;
}

export function connect(options: TargetOptions, env: NodeJS.ProcessEnv = process.env): AdminConnection {
  let db: Db;
  let local: LocalTarget | undefined;
  if (options.aws) {
    const tableName = options.table ?? env.TABLE_NAME;
    const region = options.region ?? env.AWS_REGION;
    if (!tableName || !region) throw new UsageError('--aws needs TABLE_NAME (or --table) and AWS_REGION (or --region).');
    db = createDb({ tableName, region });
  } else {
    local = localTarget(env);
    db = createDb({
      tableName: options.table ?? local.tableName,
      region: options.region ?? local.region,
      endpoint: local.dynamodbEndpoint,
    });
  }
  // The operator's changes are stamped with real time.
  const clock = () => new Date();
  return {
    db,
    ...(local && { local }),
    clock,
    accounts: modeAwareAccounts(new DynamoAccountStore(db), clock),
    apiKeys: new DynamoApiKeyStore(db),
    holders: new DynamoHolderStore(db),
    directory: new DynamoAccountDirectory(db),
    ledger: new DynamoLedgerStore(db),
    tasks: new DynamoTaskStore(db, SILENT_TELEMETRY),
    circuits: new DynamoCircuitStore(db),
    auditLog: new DynamoAuditLog(db),
    team: new DynamoTeamStore(db),
  };
}
