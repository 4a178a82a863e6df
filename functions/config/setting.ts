import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod/mini';

/**
 * The one vocabulary for settings (issue 33): a setting names the variable a function reads it
 * from, the CDK context key a deploy sets it with, and one zod schema (`zod/mini`, the
 * tree-shakable API, so even the authorizer's bundle carries only zod's core) that checks the
 * value on both sides. A value arrives as text from a function's environment and from
 * `cdk -c key=value`, and as any JSON value from cdk.json: every kind takes both. Limits and
 * defaults are written once, in the setting; messages complete a sentence that starts with the
 * variable's or the context key's name ("TASK_TIMEOUT_SECONDS must be a whole number >= 60; got "5".").
 */
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

/** A schema from a raw value (text, or a JSON value from cdk.json) to the setting's value. */
export type Kind<T> = z.ZodMiniType<T, unknown>;

export interface Setting<T = unknown> {
  /** The environment variable a function reads it from; absent: a deploy-only setting. */
  readonly variable?: string;
  /** The CDK context key a deploy sets it with; absent: the stack decides it, or it is for local use only. */
  readonly context?: string;
  readonly kind: Kind<T>;
  /** The value when it is not given (the same on both sides). */
  readonly default?: T;
  /** A function refuses to start without it. */
  readonly required?: true;
  /**
   * How the deploy hands the value to a function: its environment, or a file beside its bundle
   * (`<VARIABLE>.json`, which readSetting reads when the variable is unset): a value that could
   * outgrow Lambda's 4 KB environment, the model maps.
   */
  readonly delivery?: 'environment' | 'bundle';
  /** One line for operators (docs/operations.md). */
  readonly doc: string;
}

/** What reading a setting gives: its value, or undefined for an optional setting left unset. */
export type ValueOf<S> = S extends { kind: Kind<infer T> } ? (S extends { default: unknown } | { required: true } ? T : T | undefined) : never;

/** Settings read together by one part of the wiring (the table, the media bucket, a provider). */
export type SettingGroup = Readonly<Record<string, Setting>>;
export type ValuesOf<G extends SettingGroup> = { -readonly [K in keyof G]: ValueOf<G[K]> };

/** Declares a setting; the literal type keeps whether it has a default (see ValueOf). */
export const setting = <const S extends Setting>(declared: S): S => declared;

/** A raw value given at all: an unset variable, an empty string and null mean "not given". */
export function givenValue(raw: unknown): unknown {
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : raw.trim();
  return raw === null ? undefined : raw;
}

/** The value of `raw` for `kind`, or the sentence's end that says what it must be. */
export function checkValue<T>(kind: Kind<T>, raw: unknown): { ok: true; value: T } | { ok: false; message: string } {
  const parsed = z.safeParse(kind, raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: parsed.error.issues[0]?.message ?? 'is invalid' };
}

/**
 * Where a deployed function finds the files beside its bundle: a bundle is one index.js, so
 * every module's __dirname is the bundle's folder (/var/task). Run from the sources (the local
 * stack, tests) it is this folder, which holds no such file.
 */
export const BUNDLE_DIR = __dirname;

/** The file beside the bundle a `delivery: 'bundle'` setting ships in (lib/ writes it): `<VARIABLE>.json`. */
export const bundledFileName = (declared: Setting): string => `${declared.variable}.json`;

/**
 * A setting as a function reads it: its variable (local use, tests), else for a setting the
 * deploy ships beside the bundle that file, else its default; a ConfigError naming the
 * variable (or the file) when required and missing or when the value does not parse.
 */
export function readSetting<S extends Setting>(declared: S, env: Env = process.env, bundleDir: string = BUNDLE_DIR): ValueOf<S> {
  const name = declared.variable;
  if (!name) throw new Error('A deploy-only setting has no variable to read.');
  const raw = givenValue(env[name]);
  if (raw === undefined) {
    const bundled = declared.delivery === 'bundle' ? readBundledFile(declared, bundleDir) : undefined;
    if (bundled !== undefined) return bundled as ValueOf<S>;
    if (declared.required) throw new ConfigError(`Missing required environment variable ${name}.`);
    return declared.default as ValueOf<S>;
  }
  const checked = checkValue(declared.kind, raw);
  if (!checked.ok) throw new ConfigError(`${name} ${checked.message}; got ${JSON.stringify(raw)}.`);
  return checked.value as ValueOf<S>;
}

/** The value of a setting shipped beside the bundle, or undefined without its file. The file's text is not quoted in errors: it can be long. */
function readBundledFile(declared: Setting, bundleDir: string): unknown {
  const file = path.join(bundleDir, bundledFileName(declared));
  if (!existsSync(file)) return undefined;
  const raw = givenValue(readFileSync(file, 'utf8'));
  if (raw === undefined) return undefined;
  const checked = checkValue(declared.kind, raw);
  if (!checked.ok) throw new ConfigError(`${bundledFileName(declared)} (beside the bundle, for ${declared.variable}) ${checked.message}.`);
  return checked.value;
}

/** Every setting of a group, by field. */
export function readGroup<G extends SettingGroup>(group: G, env: Env = process.env, bundleDir: string = BUNDLE_DIR): ValuesOf<G> {
  return Object.fromEntries(Object.entries(group).map(([field, declared]) => [field, readSetting(declared, env, bundleDir)])) as ValuesOf<G>;
}

/** A value as a function's environment carries it (text), for the deploy to set. */
export function variableText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

// ---------------------------------------------------------------------------------------------
// Kinds. Each takes text (an environment variable, `-c key=value`) and the JSON value cdk.json
// would give, and says in its message what the value must be.

const DIGITS = /^\s*-?\d+\s*$/;
const numeric = z.transform((value: unknown) => (typeof value === 'string' && DIGITS.test(value) ? Number(value) : value));

/** Some text, trimmed (a name, an id, an endpoint). */
export const text = z.pipe(
  z.string({ error: 'must be a string' }),
  z.transform((value) => value.trim()),
);

/** A whole number from `min` (to `max`), given as a number or as its digits. */
export function wholeNumber(min: number, max?: number, why?: string): Kind<number> {
  const range = max === undefined ? `must be a whole number >= ${min}` : `must be a whole number from ${min} to ${max}`;
  const error = why === undefined ? range : `${range} (${why})`;
  const bounds = max === undefined ? [z.gte(min, { error })] : [z.gte(min, { error }), z.lte(max, { error })];
  return z.pipe(numeric, z.int({ error }).check(...bounds));
}

/** Any number, given as a number or as text, optionally bounded (`above`: strictly greater). */
export function decimal(bounds: { above?: number; max?: number } = {}): Kind<number> {
  const limits = [bounds.above !== undefined && `above ${bounds.above}`, bounds.max !== undefined && `at most ${bounds.max}`].filter(Boolean);
  const error = `must be a number${limits.length > 0 ? ` ${limits.join(' and ')}` : ''}`;
  return z.pipe(
    z.transform((value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value)),
    z.number({ error }).check(
      z.refine((value) => Number.isFinite(value) && (bounds.above === undefined || value > bounds.above) && (bounds.max === undefined || value <= bounds.max), { error }),
    ),
  );
}

const isHttpUrl = (value: string, protocols = ['http:', 'https:']) => {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** An http(s) URL, kept without a trailing slash. */
export const httpUrl = z.pipe(
  z.string({ error: 'must be an http(s) URL' }).check(z.refine((value) => isHttpUrl(value.trim()), { error: 'must be an http(s) URL' })),
  z.transform((value) => value.trim().replace(/\/+$/, '')),
);

/** One of a few words. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): Kind<T[number]> {
  return z.enum(values, { error: `must be one of ${values.map((value) => `"${value}"`).join(', ')}` }) as unknown as Kind<T[number]>;
}

/** One of a few whole numbers (CloudWatch's retention periods). */
export function oneOfNumbers<const T extends readonly number[]>(values: T): Kind<T[number]> {
  const error = `must be one of ${values.join(', ')}`;
  return z.pipe(numeric, z.number({ error }).check(z.refine((value) => values.includes(value), { error }))) as unknown as Kind<T[number]>;
}

/** true or false (text or a JSON boolean). */
export const flag: Kind<boolean> = z.pipe(
  z.transform((value: unknown) => (value === 'true' ? true : value === 'false' ? false : value)),
  z.boolean({ error: 'must be true or false' }),
);

/** An AWS ARN. */
export const arn = z.pipe(
  z.string({ error: 'must be an ARN' }).check(z.refine((value) => value.trim().startsWith('arn:'), { error: 'must be an ARN' })),
  z.transform((value) => value.trim()),
);

/** JSON text, or a JSON object or array given inline in cdk.json (kept as its text). */
export const jsonText: Kind<string> = z.pipe(
  z.unknown(),
  z.transform((value, ctx) => {
    if (typeof value === 'object' && value !== null) return JSON.stringify(value);
    if (typeof value === 'string') {
      try {
        JSON.parse(value);
        return value;
      } catch {
        // reported below
      }
    }
    ctx.issues.push({ code: 'custom', message: 'must be JSON text', input: value });
    return z.NEVER;
  }),
);

/** A comma-separated list of items, each checked by `item` (returning undefined for a bad one). */
function list<T>(item: (part: string) => T | undefined, error: string): Kind<T[]> {
  return z.pipe(
    z.string({ error }),
    z.transform((value, ctx) => {
      const parts = value.split(',').map((part) => item(part.trim()));
      if (parts.every((part) => part !== undefined)) return parts as T[];
      ctx.issues.push({ code: 'custom', message: error, input: value });
      return z.NEVER;
    }),
  );
}

/** Origins (scheme, host and port) of http(s) URLs, comma-separated. */
export const originList = list((part) => (isHttpUrl(part) ? new URL(part).origin : undefined), 'must be a comma-separated list of http(s) origins');

/** Seconds, comma-separated (a retry schedule). */
export const secondsList = list((part) => {
  const value = Number(part);
  return part !== '' && Number.isFinite(value) && value >= 0 ? value : undefined;
}, 'must be a comma-separated list of seconds');

/** E-mail addresses, comma-separated. */
export const emailList = list((part) => (/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(part) ? part : undefined), 'must be e-mail addresses separated by commas');
