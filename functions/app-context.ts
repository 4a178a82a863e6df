import { loadConfig, type Config } from './config';
import { DynamoAccountStore } from './data/account-repository';
import { DynamoApiKeyStore } from './data/api-key-repository';
import { createDb, type Db } from './data/dynamo-client';
import { DynamoLedgerStore } from './data/ledger-repository';
import { DynamoRateCounter } from './data/rate-counter-repository';

/**
 * Wires configuration to repositories. Handlers call `appContext()`; it is built on the first
 * call of a cold start and reused by every warm invocation (SDK clients keep their sockets).
 */
export interface AppContext {
  config: Config;
  db: Db;
  accounts: DynamoAccountStore;
  apiKeys: DynamoApiKeyStore;
  ledger: DynamoLedgerStore;
  rateCounter: DynamoRateCounter;
}

export function buildAppContext(config: Config): AppContext {
  const db = createDb({
    tableName: config.tableName,
    region: config.region,
    ...(config.dynamodbEndpoint && { endpoint: config.dynamodbEndpoint }),
  });
  return {
    config,
    db,
    accounts: new DynamoAccountStore(db),
    apiKeys: new DynamoApiKeyStore(db),
    ledger: new DynamoLedgerStore(db),
    rateCounter: new DynamoRateCounter(db),
  };
}

let current: AppContext | undefined;

export function appContext(): AppContext {
  current ??= buildAppContext(loadConfig());
  return current;
}
