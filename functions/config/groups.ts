import { PROVIDER_SETTINGS_LIST } from '#providers/settings-registry';
import { BILLING, STRIPE_SECRET_SETTINGS } from './billing';
import { PROVIDERS } from './providers';
import { MAIL } from './mail';
import { OUTPUT_DELIVERY } from './output-delivery';
import { RETENTION } from './retention';
import { CIRCUIT, COPIES, EVENTS, GATEWAY, IDENTITY, LIFECYCLE, MEDIA, REFERENCE, REGION, SUBMISSIONS, TABLE, THUMBNAILS, WEBHOOK_DELIVERY } from './service';
import type { SettingGroup } from './setting';

/**
 * Every group of settings a function may read, by name: the table the deploy, the docs and the
 * tests read them from (a Lambda's parts import only their own group). The providers' secrets
 * are not settings (a value or an ARN: functions/providers/provider-module.ts, `secrets`).
 */
export const SETTING_GROUPS = {
  REGION: { region: REGION },
  TABLE,
  MEDIA,
  IDENTITY,
  GATEWAY,
  LIFECYCLE,
  CIRCUIT,
  SUBMISSIONS,
  COPIES,
  THUMBNAILS,
  EVENTS,
  WEBHOOK_DELIVERY,
  OUTPUT_DELIVERY,
  REFERENCE,
  RETENTION,
  PROVIDERS,
  MAIL,
  BILLING,
  STRIPE_SECRETS: STRIPE_SECRET_SETTINGS,
  ...Object.fromEntries(PROVIDER_SETTINGS_LIST.map((module) => [`PROVIDER:${module.name}`, module.settings])),
} satisfies Record<string, SettingGroup>;

export type SettingGroupName = keyof typeof SETTING_GROUPS;

/** Every variable a function may read (its settings' and its providers' secrets'). */
export function functionVariables(): string[] {
  const variables = Object.values(SETTING_GROUPS as Record<string, SettingGroup>).flatMap((group) => Object.values(group).flatMap((declared) => declared.variable ?? []));
  for (const module of PROVIDER_SETTINGS_LIST) {
    for (const secret of Object.values(module.secrets)) variables.push(secret.valueVariable, ...(secret.deployed ? [secret.deployed.arnVariable] : []));
  }
  return [...new Set(variables)].sort();
}
