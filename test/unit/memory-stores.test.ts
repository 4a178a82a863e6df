import { createMemoryStores } from '#test-support/memory-stores';
import { describeStoreContract } from '#test-support/store-contract';

// The in-memory fakes the use-case tests run on keep the rules of the DynamoDB adapters:
// the same suite runs against DynamoDB Local in test/integration/store-contract.test.ts.
describeStoreContract('in-memory stores', async () => {
  const stores = createMemoryStores();
  return { stores, close: async () => {}, legacyHolder: async (holder) => stores.holders.putLegacy(holder) };
});
