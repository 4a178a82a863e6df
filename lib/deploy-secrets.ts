import { STRIPE_SECRETS } from '#adapters/stripe/settings';
import { providerSettings } from '#providers/settings-registry';
import type { DeploySettings, SecretReference } from './deploy-settings';

/**
 * Every Secrets Manager secret a synthesized stage references, from the same settings the stacks
 * are built from: each deployed provider's (lib/stateless-stack.ts, providerSecretsOf) and
 * Stripe's two. The stacks import them and never create them: operators do, before the first
 * deploy (docs/operations.md, "Secrets"), and `-c checkSecrets=true` checks they exist.
 */
export interface DeploySecret {
  /** What it holds, for the person who creates it. */
  what: string;
  /** What its value looks like (the create command's placeholder). */
  value: string;
  /** The context keys that name it: `<context>Arn` or `<context>Name`. */
  context: string;
  reference: SecretReference;
}

/** Per value variable: what each known secret holds and looks like; a new one falls back to its variable's name. */
const DESCRIPTIONS: Readonly<Record<string, { what: string; value: string }>> = {
  REPLICATE_API_TOKEN: { what: "Replicate's API token", value: 'r8_…' },
  REPLICATE_WEBHOOK_SECRET: { what: "Replicate's webhook signing secret (the key of GET https://api.replicate.com/v1/webhooks/default/secret)", value: 'whsec_…' },
  FAL_KEY: { what: "fal's API key", value: '<fal key>' },
  STRIPE_SECRET_KEY: { what: "Stripe's secret key (or a restricted key)", value: 'sk_live_…' },
  STRIPE_WEBHOOK_SECRET: { what: "the Stripe webhook endpoint's signing secret", value: 'whsec_…' },
};

export function deploySecrets(settings: DeploySettings): DeploySecret[] {
  const secrets: DeploySecret[] = [];
  const add = (variable: string, context: string, reference: SecretReference | undefined) => {
    if (!reference) return;
    secrets.push({ ...(DESCRIPTIONS[variable] ?? { what: variable, value: '…' }), context, reference });
  };
  for (const deployed of [settings.provider, ...settings.otherProviders]) {
    for (const [field, secret] of Object.entries(providerSettings(deployed.name)!.secrets)) {
      if (secret.deployed) add(secret.valueVariable, secret.deployed.context, deployed.secrets[field]);
    }
  }
  for (const [name, secret] of Object.entries(STRIPE_SECRETS)) {
    add(secret.valueVariable, secret.context, settings.billing.secrets[name as keyof typeof STRIPE_SECRETS]);
  }
  return secrets;
}

/** The secret's name: the context's name, or the one inside an ARN (before Secrets Manager's `-AbCdEf` suffix). */
export function secretName(reference: SecretReference): string {
  if ('name' in reference) return reference.name;
  const afterSecret = reference.arn.split(':secret:')[1] ?? reference.arn;
  return afterSecret.replace(/-[A-Za-z0-9]{6}$/, '');
}

/** The region of a secret given by ARN (`arn:aws:secretsmanager:<region>:...`). */
export function secretRegion(reference: SecretReference): string | undefined {
  return 'arn' in reference ? reference.arn.split(':')[3] || undefined : undefined;
}

/** The AWS CLI command that creates the secret, with a placeholder for its value. */
export function createSecretCommand(secret: DeploySecret): string {
  const region = secretRegion(secret.reference);
  return `aws secretsmanager create-secret --name ${secretName(secret.reference)} --secret-string '${secret.value}'${region ? ` --region ${region}` : ''}`;
}
