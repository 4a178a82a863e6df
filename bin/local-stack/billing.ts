import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startStripeSimulator, type StripeSimulator } from './stripe-simulator';

/**
 * Billing on the local stack: unless a developer gives Stripe's own keys (STRIPE_SECRET_KEY),
 * the Stripe simulator on a port of its own, the packs and plan it prices, and the variables that
 * point the API's Stripe adapter at it. `npm start` needs no Stripe account. The simulator's
 * address and the token its POST /simulator/events needs go to `<data folder>/stripe-simulator.json`,
 * readable by the stack's owner only.
 */
export const LOCAL_PACKS = [
  { pack_id: 'starter', price_id: 'price_local_starter', credits: 500, amount: 500, currency: 'usd' },
  { pack_id: 'pro', price_id: 'price_local_pro', credits: 2500, amount: 2000, currency: 'usd' },
];
export const LOCAL_PLAN = { price_id: 'price_local_plan', amount: 2000, currency: 'usd', interval: 'month' as const };

const SIMULATOR_KEY = 'sk_test_local_simulator';

export interface LocalBilling {
  /** The simulator, or undefined when the developer's Stripe keys are used. */
  simulator?: StripeSimulator;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export const SIMULATOR_FILE = 'stripe-simulator.json';

export async function startLocalBilling(webhookUrl: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<LocalBilling> {
  const catalogue = {
    BILLING_PACKS: env.BILLING_PACKS ?? JSON.stringify(LOCAL_PACKS),
    BILLING_PLAN: env.BILLING_PLAN ?? JSON.stringify(LOCAL_PLAN),
  };
  if (env.STRIPE_SECRET_KEY && env.STRIPE_SECRET_KEY !== SIMULATOR_KEY) return { env: catalogue, stop: async () => undefined };
  const packs = JSON.parse(catalogue.BILLING_PACKS) as { price_id: string; amount: number; currency: string }[];
  const plan = JSON.parse(catalogue.BILLING_PLAN) as { price_id: string; amount: number; currency: string; interval: string };
  const simulator = await startStripeSimulator({
    port: Number(env.STRIPE_SIM_PORT ?? 0),
    // A fresh secret per start unless given, as the simulated generation provider's.
    webhookSecret: env.STRIPE_WEBHOOK_SECRET ?? `whsec_${randomBytes(24).toString('base64')}`,
    webhookUrl,
    prices: Object.fromEntries([
      ...packs.map((pack) => [pack.price_id, { amount: pack.amount, currency: pack.currency }]),
      [plan.price_id, { amount: plan.amount, currency: plan.currency, interval: plan.interval }],
    ]),
  });
  const file = path.join(dataDir, SIMULATOR_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ url: simulator.url, eventsToken: simulator.eventsToken }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return {
    simulator,
    env: { ...catalogue, STRIPE_API_BASE: simulator.url, STRIPE_SECRET_KEY: SIMULATOR_KEY, STRIPE_WEBHOOK_SECRET: simulator.webhookSecret },
    stop: async () => {
      await simulator.stop();
      rmSync(file, { force: true });
    },
  };
}
