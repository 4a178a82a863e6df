import type { Db } from '#adapters/dynamodb/dynamo-client';

/**
 * Runs `work` and counts the commands it sent through `db`'s client, by command name
 * (`TransactWriteItemsCommand`, `GetItemCommand`, ...): how a test shows how many round trips
 * something costs, without timing it.
 */
export async function countingCommands(db: Db, work: () => Promise<unknown>): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  const name = `countCommands${Math.random()}`;
  db.doc.middlewareStack.add(
    (next, { commandName = 'unknown' }) =>
      (args) => {
        sent.set(commandName, (sent.get(commandName) ?? 0) + 1);
        return next(args);
      },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db.doc.middlewareStack.remove(name);
  }
  return sent;
}
