import type { QueueName } from '#adapters/queues/queue-names';
import type { KeyScope } from '#domain/accounts/api-key';
import type { Needs } from './needs';

/**
 * One function, declared once (issue 33): how it is reached (its trigger), who may call it (its
 * access, denied by default), what it may do (its needs), its size and its bundle. Each handler
 * under functions/handlers/ has its spec beside it (`<name>.spec.ts`, exporting `spec`); the
 * handler reads its own (access, streaming, JSON body), and the route table, the local stack,
 * the CDK stack and the access check read them all (functions/spec/registry.ts). A spec is data:
 * no prose for the API reference (that stays in functions/http/routes/, out of the bundles).
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** The dead-letter queues of the stack's root, by name (construct ids unchanged). */
export type DeadLetterName = 'copy-worker' | 'sweeper' | 'sweep-schedule';

/** Which nested stack holds the function (lib/stacks/function-area.ts): functions of one area of the API together. */
export const AREAS = ['tasks', 'account', 'events', 'pipeline', 'reference'] as const;
export type Area = (typeof AREAS)[number];

/**
 * What a caller may be allowed to do (CONTRACT.md, "Self-serve API keys" and "Teams"): an API key
 * holds some of the first three as scopes; a session's role grants some of them all. `holder` is
 * every signed-in holder's, whatever their role or account (their accounts, their invitations),
 * and no key's.
 */
export const ROLE_GRANTED = ['read', 'generate', 'webhooks', 'keys', 'billing', 'members'] as const;
export const CAPABILITIES = [...ROLE_GRANTED, 'holder'] as const;
export type Capability = (typeof CAPABILITIES)[number];
/** The capabilities an API key can hold (its scopes). */
export const KEY_CAPABILITIES = ['read', 'generate', 'webhooks'] as const satisfies readonly (Capability & KeyScope)[];

/** The kinds of caller an HTTP route can name. */
export type CallerKind = 'apiKey' | 'session';

/**
 * Who may call it. Deny by default: a caller kind, scope or role that is not named here gets
 * 403 `forbidden` (functions/http/access.ts).
 *   callers: the kinds of caller the route takes, with the capability each must hold (a key
 *     as a scope, a session through its role);
 *   public: anyone; it has nothing to guard, or it checks its own credential (a signature);
 *   aws: no route at all; IAM is the gate (a schedule, a queue, an asynchronous invoke, the authorizer).
 */
export type Access =
  | { readonly callers: readonly [CallerKind, ...CallerKind[]]; readonly capability: Capability }
  | { readonly callers: readonly ['public']; readonly checks: 'nothing' | 'stripe-signature' | 'provider-signature' }
  | { readonly callers: readonly ['aws'] };

/** How the function is reached. An HTTP path is below the API's prefix (/api/v1). */
export type Trigger =
  | {
      readonly kind: 'http';
      readonly method: HttpMethod;
      readonly path: `/${string}`;
      /** The request body is JSON, parsed before the logic runs. */
      readonly jsonBody?: true;
      /** The answer streams (API Gateway's STREAM transfer mode; up to STREAMED_ROUTE_TIMEOUT_SECONDS). */
      readonly streaming?: true;
      /** Other methods on this path the gateway itself answers with 405 (only MCP's: CONTRACT.md, "MCP transport"). */
      readonly refusedMethods?: readonly HttpMethod[];
    }
  | { readonly kind: 'authorizer' }
  | { readonly kind: 'schedule'; readonly everyMinutes: number; /** Schedule events EventBridge could not deliver. */ readonly undelivered: DeadLetterName }
  | { readonly kind: 'queue'; readonly queue: QueueName; readonly batchSize: number; readonly maxConcurrency: number }
  /** Invoked asynchronously by the functions whose needs name it in `invokes`. */
  | { readonly kind: 'async' };

/** The deploy settings that reserve a background function's concurrency (lib/deploy-settings.ts, `background`). */
export type ReservedConcurrency = 'copyWorkerConcurrency' | 'sweeperConcurrency' | 'submissionConsumerConcurrency';

/** A file a function reads at run time, copied beside its bundle: a module specifier resolved from the repository, or a path from its root. */
export interface BundledFile {
  readonly source: string;
  readonly name: string;
}

export interface FunctionSpec {
  /** Its handler's file name under functions/handlers/ (one spec per handler). */
  readonly name: string;
  /** One line for humans: the function's description and the reason for its acknowledgments. */
  readonly purpose: string;
  readonly area: Area;
  readonly trigger: Trigger;
  readonly access: Access;
  readonly needs: Needs;
  /** Sizes that differ from the house default (512 MB, 28 s: under API Gateway's 29 s; a streamed route: its integration's timeout). */
  readonly sizing?: {
    readonly memoryMb?: number;
    readonly timeoutSeconds?: number;
    /** Lambda's retries of a failed asynchronous invocation (0 to 2). */
    readonly retryAttempts?: 0 | 1 | 2;
    readonly maxEventAgeSeconds?: number;
    readonly reservedConcurrency?: ReservedConcurrency;
  };
  /** Where its failed asynchronous invocations go (a dead-letter queue of the root). */
  readonly onFailure?: DeadLetterName;
  readonly bundle?: {
    /** Packages replaced in its bundle by a stub that throws (the MCP SDK's Ajv, which it never builds). */
    readonly leaveOut?: readonly string[];
    readonly files?: readonly BundledFile[];
  };
}

/** An identity that keeps the spec's literal types (a handler's `httpHandler(spec, …)` checks them). */
export const defineFunction = <const S extends FunctionSpec>(spec: S): S => spec;

/** A spec behind an HTTP route. */
export type HttpSpec = FunctionSpec & { readonly trigger: Extract<Trigger, { kind: 'http' }> };
export const isHttpSpec = (spec: FunctionSpec): spec is HttpSpec => spec.trigger.kind === 'http';
