/**
 * A single write to an item is refused (TransactionConflictException, which the SDK does not
 * retry) while a transaction on it is in progress (a refund, a grant): try again shortly.
 */
export async function withConflictRetries<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TransactionConflictException') || attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}
