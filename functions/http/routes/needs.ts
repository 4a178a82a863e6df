import type { FunctionNeeds, TableAction } from '../route';

/** Every API handler counts the request in its key's rate window first. */
export const RATE_LIMITED: TableAction[] = ['UpdateItem'];

/**
 * What a function that can end a task needs to publish the ending: the account's webhook
 * endpoints (Query lsi1), a delivery record (GetItem, UpdateItem on the endpoint's counter,
 * PutItem) and the delivery queue.
 */
export function endsTasks(needs: FunctionNeeds): FunctionNeeds {
  const actions = [...new Set<TableAction>([...needs.table.actions, 'GetItem', 'UpdateItem', 'PutItem', 'Query'])];
  const query = [...new Set([...(needs.table.query ?? []), 'lsi1' as const])];
  const send = [...new Set([...(needs.queues?.send ?? []), 'webhook-deliveries' as const])];
  return { ...needs, table: { actions, query }, queues: { ...needs.queues, send } };
}

/**
 * What a function that sends creates to the provider needs: the provider, a turn in its budget
 * (UpdateItem on the rate counters) and the submission queue, where creates wait their turn.
 */
export function submitsTasks(needs: FunctionNeeds): FunctionNeeds {
  const actions = [...new Set<TableAction>([...needs.table.actions, 'UpdateItem'])];
  const send = [...new Set([...(needs.queues?.send ?? []), 'submissions' as const])];
  return { ...needs, table: { ...needs.table, actions }, provider: true, queues: { ...needs.queues, send } };
}
