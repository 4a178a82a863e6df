import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '#app-context';
import { createAccount } from '#domain/accounts/account-admin';
import { authenticate } from '#domain/accounts/authenticate';

/**
 * The demo account seeded on the first start. The table keeps only the key's hash, so the key
 * itself is kept in the git-ignored data folder to be printed on every start.
 */
export interface DemoAccount {
  accountId: string;
  apiKey: string;
  created: boolean;
}

const DEMO_FILE = 'demo-account.json';

export async function ensureDemoAccount(ctx: AppContext, dataDir: string): Promise<DemoAccount> {
  const file = path.join(dataDir, DEMO_FILE);
  const saved = readSaved(file);
  if (saved) {
    try {
      // Still valid in this table (the table may have been wiped while the file survived).
      await authenticate(ctx.apiKeys, `Bearer ${saved.apiKey}`, ctx.config.defaultRateLimit, ctx.clock());
      return { ...saved, created: false };
    } catch {
      // fall through: seed a new one
    }
  }
  const { account, key } = await createAccount(
    { accounts: ctx.accounts, apiKeys: ctx.apiKeys, ledger: ctx.ledger, clock: ctx.clock },
    { credits: 1000, paidAccess: true, subscriptionStatus: 'active' },
  );
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ accountId: account.accountId, apiKey: key.apiKey }, null, 2) + '\n');
  chmodSync(file, 0o600);
  return { accountId: account.accountId, apiKey: key.apiKey, created: true };
}

function readSaved(file: string): { accountId: string; apiKey: string } | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { accountId?: unknown; apiKey?: unknown };
    if (typeof parsed.accountId === 'string' && typeof parsed.apiKey === 'string') {
      return { accountId: parsed.accountId, apiKey: parsed.apiKey };
    }
  } catch {
    // unreadable: re-seed
  }
  return undefined;
}
