import { existsSync } from 'node:fs';
import path from 'node:path';
import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, type IFunction, type ILayerVersion, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Charset, LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { STREAMED_ROUTE_TIMEOUT_SECONDS } from '#http/route';
import type { FunctionSpec } from '#spec/function-spec';
import { bundleHashes, withFiles } from '../bundle-hash';
import { aliasesOf, extraFilesOf, type ExtraFile } from '../bundle-options';
import { loadSpecs } from '#spec/registry';
import type { FunctionEnvironment } from '../function-environment';
import { type MediaAccess, type MediaPrefix, mergeMedia, type QueryTarget, type TableAction } from '../function-permissions';
import { acknowledgeWildcardResource } from '../nag';

/**
 * The one way this project declares a Lambda function (Powertools' FunctionWithLogGroup idea),
 * from its spec (functions/handlers/<name>.spec.ts): the handler beside it, bundled locally by
 * esbuild (no Docker), minified with a source map, on the newest Node.js runtime, arm64 (unless
 * a layer's binary needs x86_64), X-Ray tracing, its own log group with a retention, its size
 * from the spec, and a role that holds nothing until a binder (lib/binders.ts) adds exactly what
 * the spec's needs say, with the environment that goes with it.
 */
export const HANDLERS_DIR = path.resolve(__dirname, '..', '..', 'functions', 'handlers');
/** Template metadata naming the handler a function runs; bin/invoke.ts finds bundles by it. */
export const HANDLER_METADATA_KEY = 'vidgen:handler';
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;
export const BUNDLE_TARGET = 'node24';
/**
 * Native packages of the simulated provider's renderers (libvips and an ffmpeg binary, per
 * platform): never bundled. On AWS the simulated provider (test mode on every stage, and stages
 * with provider=simulated) hands out ready-made sample outputs instead (SIM_OUTPUTS=samples).
 */
export const NATIVE_EXTERNALS = ['sharp', '@ffmpeg-installer/*'];
/**
 * Compile-time constants of every bundle. VIDGEN_BUNDLE=lambda drops the simulated provider's
 * renderers as dead code (functions/providers/simulated/simulated-provider.ts): on AWS it hands
 * out sample outputs instead.
 */
export const BUNDLE_DEFINE: Readonly<Record<string, string>> = { 'process.env.VIDGEN_BUNDLE': JSON.stringify('lambda') };
/** The SDK v3 that the Node.js runtime ships (see docs/operations.md, "Bundles"). */
export const AWS_SDK_EXTERNALS = ['@aws-sdk/*', '@smithy/*'];
/** Lambda refuses a function whose environment is larger than 4 KB. */
const ENVIRONMENT_LIMIT_BYTES = 4096;

export interface ApiFunctionProps {
  /** Its spec: name (the handler's file), purpose, trigger (a streamed route runs longer), sizing, bundle. */
  spec: FunctionSpec;
  /** What every function gets; binders add the rest (`addEnvironment`). */
  environment: FunctionEnvironment;
  logRetention: RetentionDays;
  /** Keep the log group when the stack is deleted. */
  retainLogs: boolean;
  /** Include the AWS SDK in the bundle instead of using the runtime's. */
  bundleAwsSdk: boolean;
  /** Asynchronous invocations that failed every attempt (or aged out) go here. */
  onFailure?: IQueue;
  /** Caps (and guarantees) the function's concurrency; unset: the account's shared pool. */
  reservedConcurrency?: number;
  /** Layers with native binaries (the copy worker's ffmpeg); their architecture is the function's. */
  layers?: { layers: ILayerVersion[]; architecture: Architecture };
  /**
   * Files the deploy copies beside the bundle besides the spec's (the model maps from context:
   * lib/bundle-options.ts, writeBundledSettings); given here because bundling is set up when
   * the function is built, before the binders run.
   */
  files?: readonly ExtraFile[];
}

export class ApiFunction extends Construct {
  readonly handlerName: string;
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  readonly reservedConcurrency?: number;
  private readonly purpose: string;

  readonly spec: FunctionSpec;
  /** What is copied beside its bundle: the spec's files, then the deploy's (`files`). */
  readonly bundledFiles: readonly ExtraFile[];
  private readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const { spec } = props;
    this.spec = spec;
    this.handlerName = spec.name;
    this.purpose = spec.purpose;
    if (props.reservedConcurrency) this.reservedConcurrency = props.reservedConcurrency;

    const entry = path.join(HANDLERS_DIR, `${spec.name}.ts`);
    if (!existsSync(entry)) throw new Error(`functions/handlers/${spec.name}.ts does not exist (named by its spec).`);
    const deployFiles = props.files ?? [];
    const extraFiles = [...extraFilesOf(spec), ...deployFiles];
    this.bundledFiles = extraFiles;
    for (const file of extraFiles) {
      if (!existsSync(file.source)) throw new Error(`${spec.name} needs ${file.source}, which does not exist.`);
    }
    const aliases = aliasesOf(spec);
    const { sizing } = spec;
    // A streamed route runs as long as its integration may; the others answer within API Gateway's 29 s.
    const defaultTimeout = spec.trigger.kind === 'http' && spec.trigger.streaming ? STREAMED_ROUTE_TIMEOUT_SECONDS : 28;
    this.environment = { ...(props.environment as Record<string, string>) };
    // Checked once the binders have added theirs.
    this.node.addValidation({ validate: () => environmentSizeProblems(spec.name, this.environment) });

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // Our own role instead of AWSLambdaBasicExecutionRole: it may write to this log group only.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `vidgen ${spec.name}: ${spec.purpose}`,
    });
    this.logGroup.grantWrite(this.role);

    const recipe = bundleRecipe(props.bundleAwsSdk);
    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: 'handler',
      description: `vidgen ${spec.name}: ${spec.purpose}`,
      runtime: FUNCTION_RUNTIME,
      architecture: props.layers?.architecture ?? Architecture.ARM_64,
      ...(props.layers && { layers: props.layers.layers }),
      memorySize: sizing?.memoryMb ?? 512,
      timeout: Duration.seconds(sizing?.timeoutSeconds ?? defaultTimeout),
      role: this.role,
      logGroup: this.logGroup,
      tracing: Tracing.ACTIVE,
      environment: this.environment,
      ...(sizing?.retryAttempts !== undefined && { retryAttempts: sizing.retryAttempts }),
      ...(sizing?.maxEventAgeSeconds !== undefined && { maxEventAge: Duration.seconds(sizing.maxEventAgeSeconds) }),
      ...(props.onFailure && { onFailure: new SqsDestination(props.onFailure) }),
      ...(props.reservedConcurrency && { reservedConcurrentExecutions: props.reservedConcurrency }),
      bundling: {
        forceDockerBundling: false,
        ...recipe,
        sourceMapMode: SourceMapMode.DEFAULT,
        logLevel: LogLevel.WARNING,
        // Hashed before bundling (lib/bundle-hash.ts): a bundle whose inputs did not change is not rebuilt.
        ...(Stack.of(this).bundlingRequired && { assetHash: withFiles(bundleHashOf(spec, recipe), deployFiles) }),
        ...(Object.keys(aliases).length > 0 && {
          esbuildArgs: Object.fromEntries(Object.entries(aliases).map(([name, file]) => [`--alias:${name}`, file])),
        }),
        ...(extraFiles.length > 0 && {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (_inputDir: string, outputDir: string) =>
              extraFiles.map((file) => `cp ${shellQuote(file.source)} ${shellQuote(path.join(outputDir, file.name))}`),
          },
        }),
      },
    });
    (this.function.node.defaultChild as CfnFunction).addMetadata(HANDLER_METADATA_KEY, spec.name);

    // Tracing adds xray:PutTraceSegments / PutTelemetryRecords on "*".
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions; nothing else is granted on "*".',
    });
  }

  /** Adds variables (a binder's, with its grant). NodejsFunction keeps the environment object it was given. */
  addEnvironment(variables: FunctionEnvironment): void {
    for (const [name, value] of Object.entries(variables)) if (value !== undefined) this.function.addEnvironment(name, value);
    Object.assign(this.environment, variables);
  }

  /** Item actions on the table, and Query only on the named table or indexes. */
  grantTable(table: ITableV2, actions: readonly TableAction[], queryTargets: readonly QueryTarget[] = []): void {
    const itemActions = [...new Set(actions.filter((action) => action !== 'Query'))].sort();
    if (itemActions.length > 0) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: itemActions.map((action) => `dynamodb:${action}`), resources: [table.tableArn] }),
      );
    }
    if (actions.includes('Query') !== queryTargets.length > 0) {
      throw new Error(`${this.handlerName}: Query needs query targets (the table or index names) and vice versa.`);
    }
    if (queryTargets.length > 0) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: queryTargets.map((target) =>
            target === 'table' ? table.tableArn : `${table.tableArn}/index/${target}`,
          ),
        }),
      );
    }
  }

  /** Object actions on bucket prefixes only (plus, where asked, ListBucket for honest 404s). */
  grantMedia(bucket: IBucket, ...access: (MediaAccess | undefined)[]): void {
    const media = mergeMedia(...access);
    const prefixStatement = (actions: string[], prefixes: MediaPrefix[], what: string) => {
      if (prefixes.length === 0) return;
      const resources = prefixes.map((prefix) => bucket.arnForObjects(`${prefix}*`));
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
      for (const resource of resources) {
        acknowledgeWildcardResource(
          this.role,
          resource,
          `${this.handlerName} ${this.purpose}: it ${what} objects under ${prefixes.join(', ')} only; object keys are generated ids, so the grant is a prefix.`,
        );
      }
    };
    prefixStatement(['s3:GetObject'], media.read, 'reads');
    prefixStatement(['s3:AbortMultipartUpload', 's3:PutObject'], media.write, 'writes');
    prefixStatement(['s3:DeleteObject'], media.delete, 'deletes');
    if (media.listBucket) {
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    }
  }

  /** Reading one secret's value (a provider's token, Stripe's key or signing secret). */
  grantSecretRead(secret: ISecret): void {
    const resource = secret.secretFullArn ?? `${secret.secretArn}-??????`;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], resources: [resource] }),
    );
    if (!secret.secretFullArn) {
      acknowledgeWildcardResource(
        this.role,
        resource,
        'The secret is named, not given by full ARN: "-??????" matches only the random suffix Secrets Manager appends to that one name. Pass its <setting>Arn context key with the full ARN (replicateSecretArn, stripeSecretKeySecretArn, ...) to drop the wildcard.',
      );
    }
  }

  /** lambda:InvokeFunction on that function only (no versions or aliases). */
  /** ses:SendEmail on one SES identity, from one address only (the `ses:FromAddress` condition). */
  grantSendEmail(identityArn: string, fromAddress: string): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['ses:SendEmail'], resources: [identityArn], conditions: { StringEquals: { 'ses:FromAddress': fromAddress } } }),
    );
  }

  grantInvoke(target: IFunction): void {
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [target.functionArn] }));
  }
}

function environmentSizeProblems(handler: string, environment: Readonly<Record<string, string>>): string[] {
  // Unresolved values (names and URLs of other resources) are counted at a generous 128 bytes.
  const sizes = Object.entries(environment).map(([name, value]) => ({ name, bytes: name.length + (Token.isUnresolved(value) ? 128 : Buffer.byteLength(value)) }));
  const bytes = sizes.reduce((sum, one) => sum + one.bytes, 0);
  if (bytes <= ENVIRONMENT_LIMIT_BYTES) return [];
  const largest = sizes.sort((a, b) => b.bytes - a.bytes).slice(0, 3).map((one) => `${one.name} (${one.bytes} bytes)`);
  return [`The environment of ${handler} is about ${bytes} bytes; Lambda allows ${ENVIRONMENT_LIMIT_BYTES}. The largest: ${largest.join(', ')}.`];
}

/** The esbuild options of every bundle (the asset hash covers them). */
function bundleRecipe(bundleAwsSdk: boolean) {
  return {
    format: OutputFormat.CJS,
    target: BUNDLE_TARGET,
    minify: true,
    // Minified class names would otherwise show up in logs as `t` instead of `ValidationError`.
    keepNames: true,
    sourceMap: true,
    sourcesContent: false,
    charset: Charset.UTF8,
    externalModules: [...(bundleAwsSdk ? [] : AWS_SDK_EXTERNALS), ...NATIVE_EXTERNALS],
    define: { ...BUNDLE_DEFINE },
  };
}

const hashesByRecipe = new Map<string, Map<string, string>>();

/** The function's asset hash, all functions' computed in one pass per recipe and process. */
function bundleHashOf(spec: FunctionSpec, recipe: ReturnType<typeof bundleRecipe>): string {
  const key = JSON.stringify(recipe);
  let hashes = hashesByRecipe.get(key);
  if (!hashes) {
    hashes = bundleHashes(loadSpecs(), { options: recipe, entryOf: (one) => path.join(HANDLERS_DIR, `${one.name}.ts`) });
    hashesByRecipe.set(key, hashes);
  }
  const hash = hashes.get(spec.name);
  if (!hash) throw new Error(`No bundle hash for ${spec.name}.`);
  return hash;
}

/** A POSIX shell word (command hooks run through the shell when bundling locally). */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** `get-credits` -> `GetCredits`: construct ids from handler names. */
export function constructIdFor(handler: string): string {
  return handler
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
