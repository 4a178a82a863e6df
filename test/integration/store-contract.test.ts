import { DynamoAccountStore } from '../../functions/adapters/dynamodb/account-repository';
import { DynamoApiKeyStore } from '../../functions/adapters/dynamodb/api-key-repository';
import { DynamoCallbackReceipts } from '../../functions/adapters/dynamodb/callback-receipt-repository';
import { DynamoDeliveryStore } from '../../functions/adapters/dynamodb/delivery-repository';
import { DynamoIdempotencyStore } from '../../functions/adapters/dynamodb/idempotency-repository';
import { DynamoLedgerStore } from '../../functions/adapters/dynamodb/ledger-repository';
import { DynamoRateCounter } from '../../functions/adapters/dynamodb/rate-counter-repository';
import { DynamoTaskStore } from '../../functions/adapters/dynamodb/task-repository';
import { DynamoUploadPublications } from '../../functions/adapters/dynamodb/upload-publication-repository';
import { DynamoWebhookStore } from '../../functions/adapters/dynamodb/webhook-repository';
import { SILENT_TELEMETRY } from '../../functions/domain/telemetry';
import { describeStoreContract } from '../support/store-contract';
import { createTestDb, dropTestDb } from '../support/test-db';

// The suite the in-memory fakes pass (test/unit/memory-stores.test.ts), here against the
// DynamoDB adapters on DynamoDB Local: a fresh table per test, since the sweeper's list spans
// the whole table.
describeStoreContract('DynamoDB stores', async () => {
  const db = await createTestDb();
  return {
    stores: {
      accounts: new DynamoAccountStore(db),
      apiKeys: new DynamoApiKeyStore(db),
      ledger: new DynamoLedgerStore(db),
      tasks: new DynamoTaskStore(db, SILENT_TELEMETRY),
      idempotency: new DynamoIdempotencyStore(db),
      rates: new DynamoRateCounter(db),
      callbackReceipts: new DynamoCallbackReceipts(db),
      webhooks: new DynamoWebhookStore(db),
      deliveries: new DynamoDeliveryStore(db),
      uploadPublications: new DynamoUploadPublications(db),
    },
    close: () => dropTestDb(db),
  };
});
