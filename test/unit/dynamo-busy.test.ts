import { busyOrAsIs } from '#adapters/dynamodb/dynamo-client';
import { ServiceBusyError } from '#domain/shared/errors';

const named = (name: string) => Object.assign(new Error(name), { name });

describe('busyOrAsIs: DynamoDB too slow or too loaded, after the SDK retries', () => {
  it.each(['TimeoutError', 'ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded'])(
    'turns %s into a ServiceBusyError that keeps it as its cause',
    (name) => {
      const error = named(name);
      const busy = busyOrAsIs(error);
      expect(busy).toBeInstanceOf(ServiceBusyError);
      expect((busy as ServiceBusyError).cause).toBe(error);
    },
  );

  it.each(['ConditionalCheckFailedException', 'TransactionCanceledException', 'ValidationException'])('leaves %s as it is', (name) => {
    const error = named(name);
    expect(busyOrAsIs(error)).toBe(error);
  });
});
