import type { ReferenceImages } from '#adapters/reference-images';
import type { ObjectStorage } from '#adapters/s3/object-storage';
import type { SimulatedOutputs } from '#config/service';
import type { Setting, SettingGroup } from '#config/setting';
import type { ImageModel, VideoModel } from '#domain/catalogue/catalogue';
import type { GenerationProvider } from '#domain/providers/provider';
import type { Telemetry } from '#domain/shared/telemetry';

/** The settings that read into `Settings` (#config/setting: variable, context key, kind, default). */
export type SettingsOf<Settings extends object> = { readonly [K in keyof Settings]-?: Setting<Exclude<Settings[K], undefined>> };

/**
 * What functions/config/ and lib/ know of a provider: its name, settings and secrets. Kept in
 * its folder's settings.ts, apart from its implementation, so every function reads the
 * configuration without bundling (or loading) any provider's client code.
 */
export interface ProviderSettingsModule<Name extends string = string, Settings extends object = object, SecretName extends string = string> {
  readonly name: Name;
  /**
   * Its settings besides its secrets, in the one settings vocabulary (#config/setting): each
   * names its variable (what the functions read), its CDK context key where the deploy can vary
   * it, and one schema both sides check it with; defaults live there too.
   */
  readonly settings: SettingsOf<Settings>;
  /** The secrets its functions read (API tokens, callback signing secrets), by field. */
  readonly secrets: Readonly<Record<SecretName, ProviderSecret>>;
  /** Creates a second it allows us, unless PROVIDER_BUDGET_PER_SECOND says otherwise; unset: not paced. */
  readonly budgetPerSecond?: number;
  /** Configured only where PROVIDER or PROVIDER_ROUTES names it (it needs no secret, so would be everywhere). */
  readonly onlyWhereNamed?: boolean;
}

/**
 * One upstream generation provider, as everything outside its folder sees it: functions/config/
 * reads its settings (settings.ts), app-context/ builds it, lib/ gives its functions what they
 * need. A new provider is a folder exporting one of these and one entry in each registry.
 */
export interface ProviderModule<Name extends string = string, Settings extends object = object, SecretName extends string = string>
  extends ProviderSettingsModule<Name, Settings, SecretName> {
  /** The model ids it serves (of the catalogue's), with these settings. */
  models(configured: ConfiguredProvider<Name, Settings, SecretName>): readonly (VideoModel | ImageModel)[];
  /** Builds the provider from its settings and secrets. Makes no network call. */
  create(configured: ConfiguredProvider<Name, Settings, SecretName>, parts: ProviderParts): GenerationProvider;
}

/**
 * A module of any provider, for the code that loops over them all: what its settings hold stays
 * the module's business (each takes back the configuration it read).
 */
export interface SomeProviderSettings {
  readonly name: string;
  readonly settings: SettingGroup;
  readonly secrets: Readonly<Record<string, ProviderSecret>>;
  readonly budgetPerSecond?: number;
  readonly onlyWhereNamed?: boolean;
}

/** A provider module of any provider (settings, models and factory). */
export interface SomeProviderModule extends SomeProviderSettings {
  models(configured: { name: string }): readonly (VideoModel | ImageModel)[];
  create(configured: { name: string }, parts: ProviderParts): GenerationProvider;
}

/** A secret a provider's functions read: given as its value (local use, tests) or as its Secrets Manager secret (AWS). */
export interface ProviderSecret {
  /** The variable holding the value itself; never set by the stack. */
  valueVariable: string;
  /**
   * Where it lives on AWS; unset for a secret of the local stack only. `arnVariable`: the
   * variable the stack sets to its ARN on the functions that call providers (which may read
   * it); `context`: its CDK context, `<context>Arn` (a full ARN) or `<context>Name`, else
   * `vidgen/<stage>/<defaultName>`.
   */
  deployed?: { arnVariable: string; context: string; defaultName: string };
  /** Without it the provider cannot work: a function refuses to start with this provider chosen and the secret missing. */
  required: boolean;
  /** Why a value given directly is unusable, if it is (the message never shows the value). */
  invalid?: (value: string) => string | undefined;
}

/** A secret given as its value (local use, tests) or as the Secrets Manager secret holding it (AWS). */
export type SecretSource = { value: string } | { secretArn: string };

/** A provider with its settings and secrets read (secrets by field; one that is not required may be absent). */
export type ConfiguredProvider<Name extends string = string, Settings extends object = object, SecretName extends string = string> = {
  name: Name;
} & Settings & { [K in SecretName]?: SecretSource };

/** The configuration a module reads. */
export type ConfigurationOf<M> = M extends ProviderSettingsModule<infer N, infer S, infer K> ? ConfiguredProvider<N, S, K> : never;

/** What a provider may use besides its settings, from the wiring. */
export interface ProviderParts {
  storage: ObjectStorage;
  references: ReferenceImages;
  /** What the simulated provider hands out (SIM_OUTPUTS). */
  simulatedOutputs: SimulatedOutputs;
  /** Reads a secret's value, cached for a few minutes (Secrets Manager on AWS; a test passes its own). */
  readSecretValue: (secretArn: string) => Promise<string>;
  telemetry: Telemetry;
}
