import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { CONFIG_DEFAULTS } from '#config';
import { functionVariables } from '#config/groups';
import { REPLICATE_DEFAULTS } from '#providers/replicate/index';
import { PROVIDER_MODULES } from '#providers/registry';
import { GATEWAY_RESPONSES } from '#contract/gateway-responses';
import { API_PREFIX, BINARY_MEDIA_TYPES, ROUTES, type Route } from '#http/routes/index';
import { STREAMED_ROUTE_TIMEOUT_SECONDS } from '#http/route';
import { HOSTED_MAX_WAIT_SECONDS } from '#mcp/lambda-transport';
import { readDeploySettings } from '#lib/deploy-settings';
import {
  billingEnvironment,
  identityEnvironment,
  mailEnvironment,
  mediaEnvironment,
  NOT_SET_ON_AWS,
  observabilityEnvironment,
  providerBundledSettings,
  providerEnvironment,
  tableEnvironment,
} from '#lib/function-environment';
import { runsLifecycle } from '#lib/binders';
import { loadSpecs, specOf } from '#spec/registry';
import { functionIdOf, resourcesOf, synthesize, type Synthesized } from './support/cdk-app';
import { templateEnvironments } from '#bin/invoke/template-environment';

const CONTRACT_CODES = ['unauthorized', 'not_found', 'payload_too_large', 'rate_limit_exceeded', 'validation_error', 'internal_error'];

describe('StatelessStack', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
  });
  const template = () => s.statelessTemplate;
  const resources = () => template().toJSON().Resources as Record<string, any>;

  /** "/api/v1/videos/{video_id}" from an AWS::ApiGateway::Resource id, following ParentId up to the root. */
  function pathOf(resourceId: string): string {
    const resource = resources()[resourceId];
    const parent = resource.Properties.ParentId;
    const parentPath = parent['Fn::GetAtt'] ? '' : pathOf(parent.Ref);
    return `${parentPath}/${resource.Properties.PathPart}`;
  }

  /** The methods that run a function (the mock ones, answered by the gateway, are tested apart). */
  function methods() {
    return functionMethods().map(([, m]) => ({
      method: m.Properties!.HttpMethod as string,
      path: m.Properties!.ResourceId.Ref ? pathOf(m.Properties!.ResourceId.Ref) : '/',
      authorizationType: m.Properties!.AuthorizationType as string,
      authorizerId: m.Properties!.AuthorizerId,
      functionId: (m.Properties!.Integration.Uri['Fn::Join'][1] as unknown[])
        .map((part) => (part as { 'Fn::GetAtt'?: [string] })['Fn::GetAtt']?.[0])
        .find(Boolean),
    }));
  }

  const functionMethods = () => resourcesOf(template(), 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties!.Integration.Type !== 'MOCK');

  describe('REST API', () => {
    it('has every route of the route table, with its method, behind the authorizer unless marked public', () => {
      const deployed = methods();
      const authorizerId = resourcesOf(template(), 'AWS::ApiGateway::Authorizer')[0]![0];
      expect(deployed.map((m) => `${m.method} ${m.path}`).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
      for (const route of ROUTES) {
        const method = deployed.find((m) => m.method === route.method && m.path === route.path)!;
        expect(method.functionId).toBe(functionIdOf(template(), route.handler));
        if (route.callers === 'public') {
          expect([route.path, method.authorizationType, method.authorizerId]).toEqual([route.path, 'NONE', undefined]);
        } else {
          expect([route.path, method.authorizationType, method.authorizerId]).toEqual([route.path, 'CUSTOM', { Ref: authorizerId }]);
        }
      }
      expect(ROUTES.filter((r) => r.callers !== 'public').length).toBeGreaterThanOrEqual(10);
    });

    it('keeps /account/members/invitations a literal resource beside {holder_id}: the revoke route is its own, never a holder named "invitations"', () => {
      const children = (parentPath: string) =>
        resourcesOf(template(), 'AWS::ApiGateway::Resource')
          .map(([id]) => pathOf(id))
          .filter((path) => path.startsWith(`${parentPath}/`) && !path.slice(parentPath.length + 1).includes('/'));
      expect(children('/api/v1/account/members').sort()).toEqual(['/api/v1/account/members/invitations', '/api/v1/account/members/{holder_id}']);
      const revoke = methods().find((m) => m.method === 'DELETE' && m.path === '/api/v1/account/members/invitations/{invitation_id}')!;
      expect(revoke.functionId).toBe(functionIdOf(template(), 'revoke-invitation'));
      // The literal resource has no method of its own: API Gateway answers it as an unknown route.
      expect(methods().filter((m) => m.path === '/api/v1/account/members/invitations')).toEqual([]);
    });

    it("streams the streamed routes' answers (MCP) through Lambda's streaming invoke, for as long as their function may run, and buffers the rest", () => {
      const byRoute = functionMethods().map(([, m]) => {
        const integration = m.Properties!.Integration;
        const uri = (integration.Uri['Fn::Join'][1] as unknown[]).filter((part) => typeof part === 'string').join('');
        return { path: pathOf(m.Properties!.ResourceId.Ref), mode: integration.ResponseTransferMode, timeout: integration.TimeoutInMillis, uri };
      });
      const streamed = ROUTES.filter((route) => route.streaming).map((route) => route.path);
      expect(streamed).toEqual(['/api/v1/mcp']);
      for (const method of byRoute) {
        if (streamed.includes(method.path)) {
          expect(method).toMatchObject({ mode: 'STREAM', timeout: STREAMED_ROUTE_TIMEOUT_SECONDS * 1000 });
          expect(method.uri).toContain('/response-streaming-invocations');
        } else {
          expect([method.path, method.mode, method.timeout]).toEqual([method.path, undefined, undefined]);
          expect(method.uri).toMatch(/\/invocations$/);
        }
      }
      // The function outlasts the longest wait it serves, and runs as long as its integration.
      const mcp = resources()[functionIdOf(template(), 'mcp')].Properties;
      expect(mcp.Timeout).toBe(STREAMED_ROUTE_TIMEOUT_SECONDS);
      expect(HOSTED_MAX_WAIT_SECONDS).toBeLessThan(STREAMED_ROUTE_TIMEOUT_SECONDS - 5);
    });

    it('answers GET and DELETE on /api/v1/mcp itself (a mock integration): 405 method_not_allowed, Allow: POST, no authorizer', () => {
      const mocks = resourcesOf(template(), 'AWS::ApiGateway::Method').filter(([, m]) => m.Properties!.Integration.Type === 'MOCK');
      expect(mocks.map(([, m]) => `${m.Properties!.HttpMethod} ${pathOf(m.Properties!.ResourceId.Ref)}`).sort()).toEqual(['DELETE /api/v1/mcp', 'GET /api/v1/mcp']);
      const refused = GATEWAY_RESPONSES.methodNotAllowed;
      expect([refused.status, refused.body.error?.code]).toEqual([405, 'method_not_allowed']);
      const headers = { Allow: "'POST'", 'Content-Type': "'application/json'", 'X-Request-Id': 'context.requestId' };
      for (const [, { Properties: method }] of mocks) {
        expect(method).toMatchObject({ AuthorizationType: 'NONE', MethodResponses: [{ StatusCode: '405' }] });
        expect(method!.AuthorizerId).toBeUndefined();
        expect(Object.keys(method!.MethodResponses[0].ResponseParameters).sort()).toEqual(Object.keys(headers).map((name) => `method.response.header.${name}`).sort());
        // Whatever the request's Content-Type, the one (default) integration response answers.
        expect(method!.Integration).toEqual({
          Type: 'MOCK',
          PassthroughBehavior: 'WHEN_NO_MATCH',
          RequestTemplates: { 'application/json': '{"statusCode": 405}' },
          IntegrationResponses: [
            {
              StatusCode: '405',
              ResponseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [`method.response.header.${name}`, value])),
              ResponseTemplates: { 'application/json': JSON.stringify(refused.body) },
            },
          ],
        });
      }
    });

    it('uses a REQUEST authorizer on the Authorization header, cached for authCacheTtlSeconds (no function reads it)', () => {
      template().hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: CONFIG_DEFAULTS.authCacheTtlSeconds,
        AuthorizerUri: Match.objectLike({
          'Fn::Join': ['', Match.arrayWith([{ 'Fn::GetAtt': [functionIdOf(template(), 'authorizer'), 'Arn'] }])],
        }),
      });
      for (const [, fn] of resourcesOf(template(), 'AWS::Lambda::Function')) expect(fn.Properties?.Environment?.Variables?.AUTH_CACHE_TTL_SECONDS).toBeUndefined();
    });

    it('passes binary bodies (multipart uploads) base64-encoded', () => {
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        BinaryMediaTypes: [...BINARY_MEDIA_TYPES],
      });
      expect(BINARY_MEDIA_TYPES).toContain('multipart/form-data');
    });

    it('logs every request as JSON with its request id, traces, and throttles the stage as a backstop', () => {
      const [, stage] = resourcesOf(template(), 'AWS::ApiGateway::Stage')[0]!;
      const format = JSON.parse(stage.Properties!.AccessLogSetting.Format);
      expect(format.requestId).toBe('$context.requestId');
      expect(format.errorType).toBe('$context.error.responseType');
      expect(stage.Properties!.StageName).toBe('dev');
      expect(stage.Properties!.TracingEnabled).toBe(true);
      expect(stage.Properties!.MethodSettings).toEqual([
        expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      ]);
    });

    it.each([
      ['UNAUTHORIZED', GATEWAY_RESPONSES.unauthorized],
      ['ACCESS_DENIED', GATEWAY_RESPONSES.expired],
      ['MISSING_AUTHENTICATION_TOKEN', GATEWAY_RESPONSES.notFound],
      ['REQUEST_TOO_LARGE', GATEWAY_RESPONSES.payloadTooLarge],
      ['THROTTLED', GATEWAY_RESPONSES.throttled],
      ['DEFAULT_5XX', GATEWAY_RESPONSES.internal],
    ])('answers %s with the shared envelope', (type, shared) => {
      template().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(shared.status),
        ResponseParameters: {
          'gatewayresponse.header.X-Request-Id': 'context.requestId',
          'gatewayresponse.header.Content-Type': "'application/json'",
        },
        ResponseTemplates: { 'application/json': JSON.stringify(shared.body) },
      });
    });

    it('answers every gateway error in the envelope with a CONTRACT code, unknown routes with 404 not_found', () => {
      const responses = resourcesOf(template(), 'AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties!);
      expect(responses.map((r) => r.ResponseType).sort()).toEqual(
        ['ACCESS_DENIED', 'DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'REQUEST_TOO_LARGE', 'THROTTLED', 'UNAUTHORIZED'].sort(),
      );
      for (const response of responses) {
        const body = JSON.parse(response.ResponseTemplates['application/json']);
        expect(body.data).toBeNull();
        expect(typeof body.error.message).toBe('string');
        expect(CONTRACT_CODES).toContain(body.error.code);
      }
      const throttled = responses.find((r) => r.ResponseType === 'THROTTLED')!;
      expect(throttled.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
      const notFound = responses.find((r) => r.ResponseType === 'MISSING_AUTHENTICATION_TOKEN')!;
      expect(notFound.StatusCode).toBe('404');
      expect(JSON.parse(notFound.ResponseTemplates['application/json']).error.code).toBe('not_found');
      const default4xx = responses.find((r) => r.ResponseType === 'DEFAULT_4XX')!;
      expect([default4xx.StatusCode, JSON.parse(default4xx.ResponseTemplates['application/json']).error.code]).toEqual(['400', 'validation_error']);
    });

    it('outputs the API URL ending in /api/v1', () => {
      const output = template().toJSON().Outputs.ApiUrl.Value;
      const parts = output['Fn::Join'][1] as unknown[];
      expect(parts.at(-1)).toMatch(/\/api\/v1$/);
      expect(Object.keys(template().toJSON().Outputs).sort()).toEqual(['ApiUrl', 'ConsoleUrl']);
    });
  });

  describe('functions', () => {
    const handlers = () => loadSpecs().map((spec) => spec.name);
    const environmentOf = (handler: string): Record<string, unknown> => resources()[functionIdOf(template(), handler)].Properties.Environment.Variables;

    it('has one function per spec: the endpoints plus the functions behind no route (authorizer, sweeper, copy worker, queue consumers)', () => {
      const deployed = resourcesOf(template(), 'AWS::Lambda::Function')
        .map(([, fn]) => fn.Metadata?.['vidgen:handler'])
        .filter(Boolean);
      expect(deployed.sort()).toEqual(handlers().sort());
    });

    it('runs every function on the newest Node.js runtime, arm64 (the copy worker x86_64, as its ffmpeg layer), traced, with its own log group', () => {
      for (const handler of handlers()) {
        const fn = resources()[functionIdOf(template(), handler)].Properties;
        expect(fn.Runtime).toBe('nodejs24.x');
        expect(fn.Architectures).toEqual([handler === 'copy-output' ? 'x86_64' : 'arm64']);
        expect(fn.TracingConfig).toEqual({ Mode: 'Active' });
        expect(fn.Handler).toBe('index.handler');
        const logGroupId = fn.LoggingConfig.LogGroup.Ref;
        expect(resources()[logGroupId].Type).toBe('AWS::Logs::LogGroup');
        expect(resources()[logGroupId].Properties.RetentionInDays).toBe(14);
      }
    });

    it("gives each function only the settings its spec's needs call for, the CDN as media base URL", () => {
      const OBSERVABILITY = ['LOG_LEVEL', 'NODE_OPTIONS', 'POWERTOOLS_METRICS_NAMESPACE', 'POWERTOOLS_SERVICE_NAME'];
      expect(Object.keys(environmentOf('get-openapi')).sort()).toEqual(OBSERVABILITY);
      expect(Object.keys(environmentOf('get-credits')).sort()).toEqual([...OBSERVABILITY, 'TABLE_NAME'].sort());
      expect(Object.keys(environmentOf('authorizer')).sort()).toEqual(
        [...OBSERVABILITY, 'TABLE_NAME', 'IDENTITY_ISSUER', 'IDENTITY_CLIENT_ID', 'SIGNUP_CREDITS', 'DEFAULT_RATE_LIMIT'].sort(),
      );
      expect(environmentOf('authorizer').DEFAULT_RATE_LIMIT).toBe(String(CONFIG_DEFAULTS.defaultRateLimit));
      for (const spec of loadSpecs()) {
        const env = environmentOf(spec.name);
        expect(env).toMatchObject({ NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'vidgen-dev' });
        // From the stateful stack through SSM parameters (lib/shared-parameters.ts), not imports.
        if (spec.needs.table) expect(env.TABLE_NAME).toEqual({ Ref: 'TableNameParameter' });
        if (spec.needs.media || runsLifecycle(spec)) {
          expect(env).toMatchObject({ MEDIA_BUCKET: { Ref: 'MediaBucketNameParameter' }, PUBLIC_MEDIA_BASE_URL: { Ref: 'PublicMediaBaseUrlParameter' } });
        } else {
          expect([spec.name, env.MEDIA_BUCKET]).toEqual([spec.name, undefined]);
        }
        if (runsLifecycle(spec)) {
          expect(env).toMatchObject({
            PROVIDER: 'replicate',
            TASK_TIMEOUT_SECONDS: String(CONFIG_DEFAULTS.taskTimeoutSeconds),
            REPLICATE_BASE_URL: REPLICATE_DEFAULTS.baseUrl,
            REPLICATE_API_TOKEN_SECRET_ARN: expect.anything(),
          });
        } else {
          // No model map, provider setting or secret ARN in a function that never calls a provider.
          expect([spec.name, Object.keys(env).filter((name) => /^(PROVIDER|REPLICATE_|FAL_|SIM_|TASK_TIMEOUT|CIRCUIT_)/.test(name))]).toEqual([spec.name, []]);
        }
      }
    });

    it("ships the model maps beside the bundles of the functions that run the lifecycle, not in their environment: a map over Lambda's 4 KB deploys", () => {
      const replicateModels = JSON.stringify({ 'vid-1-5-pro': { model: `owner/${'x'.repeat(5000)}` } });
      const falModels = JSON.stringify({ 'vid-1-5-pro': { endpoint: 'fal-ai/x', input: {} } });
      const falSecretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:fal-api-key-AbCdEf';
      const synthesized = synthesize({ context: { replicateModels, falModels, falSecretArn } });
      const env = templateEnvironments(synthesized.statelessTemplate);
      for (const spec of loadSpecs()) {
        expect([spec.name, Object.keys(env[spec.name] ?? {}).filter((name) => /_MODELS$/.test(name))]).toEqual([spec.name, []]);
        const files = synthesized.stateless.functions.get(spec.name)!.bundledFiles;
        const shipped = Object.fromEntries(files.filter((file) => file.name.endsWith('_MODELS.json')).map((file) => [file.name, readFileSync(file.source, 'utf8')]));
        expect([spec.name, shipped]).toEqual([spec.name, runsLifecycle(spec) ? { 'REPLICATE_MODELS.json': replicateModels, 'FAL_MODELS.json': falModels } : {}]);
      }
      // Written into the cloud assembly, one file per content.
      expect(readdirSync(path.join(synthesized.outdir, 'vidgen-settings')).sort()).toHaveLength(2);
    });

    it("refuses at synth a function environment over Lambda's 4 KB, naming its largest variables", () => {
      const billingPacks = Array.from({ length: 20 }, (_, i) => ({ pack_id: `pack-${i}`, price_id: `price_${'x'.repeat(200)}`, credits: 100, amount: 500, currency: 'usd' }));
      expect(() => synthesize({ context: { billingPacks } })).toThrow(/The environment of [a-z-]+ is about \d+ bytes; Lambda allows 4096\. The largest: BILLING_PACKS \(\d+ bytes\)/);
    });

    it('sets every variable functions/config/ reads, except the ones that must not be set on AWS', () => {
      // Every variable of the settings vocabulary (functions/config/groups.ts), providers' included.
      const read = new Set(functionVariables());
      expect(read.size).toBeGreaterThan(5);
      for (const module of PROVIDER_MODULES) for (const secret of Object.values(module.secrets)) expect(read).toContain(secret.valueVariable);
      const providerSecretArns = { REPLICATE_API_TOKEN_SECRET_ARN: 'arn:secret', REPLICATE_WEBHOOK_SECRET_ARN: 'arn:webhook-secret', FAL_KEY_SECRET_ARN: 'arn:fal' };
      const settings = (context: Record<string, unknown>) => readDeploySettings((key) => context[key], {});
      const simulated = settings({ provider: 'simulated' });
      const replicateAndFal = settings({ provider: 'replicate', replicateModels: '{}', falModels: '{}', falSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fal-api-key-AbCdEf' });
      const set = new Set([
        // The model maps: as files beside the bundle named after their variables (REPLICATE_MODELS.json).
        ...providerBundledSettings(replicateAndFal).map((file) => file.name.replace(/\.json$/, '')),
        // What the binders set (lib/binders.ts), from each group's function.
        ...Object.keys(observabilityEnvironment(simulated)),
        ...Object.keys(tableEnvironment(simulated, 't')),
        ...Object.keys(mediaEnvironment(simulated, { bucketName: 'b', publicMediaBaseUrl: 'https://cdn' })),
        ...Object.keys(providerEnvironment(simulated, providerSecretArns)),
        ...Object.keys(providerEnvironment(settings({ provider: 'replicate', replicateModels: '{}' }), providerSecretArns)),
        // A second provider (its secret named) with its settings, and routes across the two.
        ...Object.keys(
          providerEnvironment(
            settings({
              provider: 'replicate',
              replicateModels: '{}',
              falSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:fal-api-key-AbCdEf',
              falBaseUrl: 'https://queue.fal.run',
              falJwksUrl: 'https://rest.alpha.fal.ai/.well-known/jwks.json',
              falTimeoutMs: 10000,
              falModels: '{}',
              providerRoutes: JSON.stringify({ 'vid-1-5-pro': ['replicate', 'fal'] }),
            }),
            providerSecretArns,
          ),
        ),
        // The billing functions: the ARNs of the Stripe secrets each reads.
        ...Object.keys(billingEnvironment(simulated, { secretKey: 'arn:key', webhookSecret: 'arn:webhook' })),
        // The authorizer's alone: sessions.
        ...Object.keys(identityEnvironment(simulated, { issuer: 'https://issuer', clientId: 'client' })),
        // invite-member on a stage with a sender and a console domain (issue 36).
        ...Object.keys(mailEnvironment(settings({ mailFromAddress: 'invites@example.com', consoleDomainName: 'console.example.com', consoleCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/x' }))),
        // Per function: the copy worker's name and the queues a function sends to.
        'COPY_WORKER_FUNCTION',
        'WEBHOOK_QUEUE_URL',
        'SUBMISSION_QUEUE_URL',
        'OUTPUT_DELIVERY_QUEUE_URL',
        // The functions that submit: where the provider calls back.
        'CALLBACK_BASE_URL',
        // The copy worker: the binary in its ffmpeg layer.
        'FFMPEG_PATH',
      ]);
      const missing = [...read].filter((name) => !set.has(name) && !(name in NOT_SET_ON_AWS));
      expect(missing).toEqual([]);
    });

    it("gives the authorizer, and the invitation routes that ask the identity provider afresh, the user pool's issuer and client from SSM, and the sign-up credits", () => {
      // Issue 36: GET /invitations and accept bind to the verified address the provider gives now (GetUser).
      expect(loadSpecs().filter((spec) => spec.needs.identity).map((spec) => spec.name).sort()).toEqual(['accept-invitation', 'authorizer', 'list-invitations']);
      for (const handler of handlers()) {
        const env = resources()[functionIdOf(template(), handler)].Properties.Environment.Variables;
        if (['authorizer', 'accept-invitation', 'list-invitations'].includes(handler)) {
          expect(env).toMatchObject({
            IDENTITY_ISSUER: { Ref: 'IdentityIssuerParameter' },
            IDENTITY_CLIENT_ID: { Ref: 'UserPoolClientIdParameter' },
            SIGNUP_CREDITS: String(CONFIG_DEFAULTS.signupCredits),
          });
        } else {
          expect(env.IDENTITY_ISSUER).toBeUndefined();
        }
      }
    });

    it('never puts the provider token in the template, only its secret ARN', () => {
      const text = JSON.stringify(template().toJSON());
      expect(text).not.toContain('REPLICATE_API_TOKEN"');
      expect(text).toContain('REPLICATE_API_TOKEN_SECRET_ARN');
    });

    it("gives each billing function the ARNs of exactly the Stripe secrets its spec names, never a secret's value, and no other function any", () => {
      const text = JSON.stringify(template().toJSON());
      expect(text).not.toMatch(/"STRIPE_(SECRET_KEY|WEBHOOK_SECRET)"/);
      const billingHandlers = loadSpecs().filter((spec) => spec.needs.stripe !== undefined).map((spec) => spec.name);
      expect(billingHandlers.sort()).toEqual(['create-checkout', 'create-portal', 'get-billing', 'stripe-webhook']);
      for (const [, fn] of resourcesOf(template(), 'AWS::Lambda::Function')) {
        const handler = fn.Metadata?.['vidgen:handler'] as string | undefined;
        if (!handler) continue;
        const variables = Object.keys(fn.Properties?.Environment?.Variables ?? {});
        const named = specOf(handler).needs.stripe ?? [];
        expect([handler, variables.includes('STRIPE_SECRET_KEY_ARN')]).toEqual([handler, named.includes('secretKey')]);
        expect([handler, variables.includes('STRIPE_WEBHOOK_SECRET_ARN')]).toEqual([handler, named.includes('webhookSecret')]);
      }
      // Stripe's webhook verifies with the signing secret and never calls Stripe; checkout and the portal call it.
      expect(Object.keys(environmentOf('stripe-webhook'))).toContain('STRIPE_WEBHOOK_SECRET_ARN');
      expect(Object.keys(environmentOf('create-checkout'))).toContain('STRIPE_SECRET_KEY_ARN');
    });

    it('tells the polling functions (and only them) which function copies results', () => {
      const copyWorkerId = functionIdOf(template(), 'copy-output');
      for (const handler of handlers()) {
        const env = resources()[functionIdOf(template(), handler)].Properties.Environment.Variables;
        if (['get-video', 'get-image', 'mcp', 'provider-callback', 'sweeper'].includes(handler)) {
          expect(env.COPY_WORKER_FUNCTION).toEqual({ Ref: copyWorkerId });
        } else {
          expect(env.COPY_WORKER_FUNCTION).toBeUndefined();
        }
      }
    });

    it("gives the copy worker (and only it) the ffmpeg layer, from the static x86_64 binary in node_modules, and FFMPEG_PATH into it", () => {
      // Ours; the console's BucketDeployment brings CDK's own AWS CLI layer for its handler.
      const layers = resourcesOf(template(), 'AWS::Lambda::LayerVersion').filter(([, layer]) => String(layer.Properties?.Description).startsWith('vidgen:'));
      expect(layers).toHaveLength(1);
      const [layerId, layer] = layers[0]!;
      expect(layer.Properties!.CompatibleArchitectures).toEqual(['x86_64']);
      // The asset is the package folder with only the binary in it, staged offline at synth.
      const assetHash = String(layer.Properties!.Content.S3Key).replace(/\.zip$/, '');
      expect(readdirSync(path.join(s.outdir, `asset.${assetHash}`))).toEqual(['ffmpeg']);
      for (const handler of handlers()) {
        const fn = resources()[functionIdOf(template(), handler)].Properties;
        if (handler === 'copy-output') {
          expect(fn.Layers).toEqual([{ Ref: layerId }]);
          expect(fn.Environment.Variables.FFMPEG_PATH).toBe('/opt/ffmpeg');
        } else {
          expect([handler, fn.Layers, fn.Environment.Variables.FFMPEG_PATH]).toEqual([handler, undefined, undefined]);
        }
      }
    });

    it('tells the functions that submit (and only them) the submission queue and the callback address', () => {
      const submitting = ['generate', 'generate-image', 'mcp', 'sweeper', 'submission-consumer'];
      const queue = s.stateless.workQueues.find((work) => work.name === 'submissions')!;
      const restApiId = resourcesOf(template(), 'AWS::ApiGateway::RestApi')[0]![0];
      for (const handler of handlers()) {
        const env = resources()[functionIdOf(template(), handler)].Properties.Environment.Variables;
        if (submitting.includes(handler)) {
          expect([handler, env.SUBMISSION_QUEUE_URL]).toEqual([handler, s.stateless.resolve(queue.queue.queueUrl)]);
          // https://<api id>.execute-api.<region>.<suffix>/<stage>/api/v1: the API's own address.
          const url = JSON.stringify(env.CALLBACK_BASE_URL);
          expect(url).toContain(`{"Ref":"${restApiId}"}`);
          expect(url).toContain('/dev/api/v1');
        } else {
          expect([handler, env.SUBMISSION_QUEUE_URL, env.CALLBACK_BASE_URL]).toEqual([handler, undefined, undefined]);
        }
      }
      // With a custom domain, the provider calls back through it.
      const withDomain = synthesize({
        context: { apiDomainName: 'api.example.com', apiCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555' },
      });
      const generate = withDomain.statelessTemplate.toJSON().Resources[functionIdOf(withDomain.statelessTemplate, 'generate')];
      expect(generate.Properties.Environment.Variables.CALLBACK_BASE_URL).toBe('https://api.example.com/api/v1');
    });

    it('runs the sweeper every minute, without retries', () => {
      template().hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        State: 'ENABLED',
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [functionIdOf(template(), 'sweeper'), 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
          }),
        ],
      });
      template().hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [functionIdOf(template(), 'sweeper'), 'Arn'] },
      });
    });
  });

  describe('alarms', () => {
    const alarms = () => resourcesOf(template(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
    const named = (suffix: string) => alarms().find((a) => a.AlarmName === `vidgen-dev-${suffix}`);

    it('watch reversal shortfalls: any credits a refunded or disputed pack could not take back', () => {
      expect(named('reversal-shortfall')).toMatchObject({ MetricName: 'ReversalShortfall', Namespace: 'VidGen', Threshold: 1, Statistic: 'Sum' });
    });

    it('watch the API 5xx rate and p99 latency', () => {
      expect(named('api-5xx-rate')!.Metrics.find((m: { Expression?: string }) => m.Expression).Expression).toMatch(/IF\(requests >= 20, .*errors.* \/ requests, 0\)/);
      expect(named('api-latency-p99')).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: 5000 });
    });

    it('watch throttles of every function, authorizer failures, the sweeper and DynamoDB throttling', () => {
      for (const handler of ['authorizer', 'sweeper', 'copy-output', ...ROUTES.map((r) => r.handler)]) {
        expect(named(`${specOf(handler).area}-throttles-${handler}`)).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda' });
      }
      expect(named('authorizer-errors')).toMatchObject({ MetricName: 'AuthorizerFailures', Namespace: 'VidGen/dev' });
      template().hasResourceProperties('AWS::Logs::MetricFilter', {
        FilterPattern: '{ ($.errorType = "AUTHORIZER_FAILURE") || ($.errorType = "AUTHORIZER_CONFIGURATION_ERROR") }',
      });
      expect(named('sweeper-errors')).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda' });
      expect(named('sweeper-stopped')).toMatchObject({ MetricName: 'Invocations', TreatMissingData: 'breaching' });
      expect(JSON.stringify(named('dynamodb-throttles')!.Metrics)).toContain('WriteThrottleEvents');
    });

    it('notify an SNS topic from context', () => {
      const topicArn = 'arn:aws:sns:eu-west-1:123456789012:vidgen-alarms';
      const withTopic = synthesize({ context: { alarmTopicArn: topicArn } });
      const all = resourcesOf(withTopic.statelessTemplate, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
      expect(all.length).toBeGreaterThan(10);
      for (const alarm of all) {
        expect(alarm.AlarmActions).toEqual([topicArn]);
        expect(alarm.OKActions).toEqual([topicArn]);
      }
      expect(alarms()[0]!.AlarmActions).toBeUndefined();
    });
  });

  describe('route table changes', () => {
    it('picks up new routes, public or not, without other changes', () => {
      const extra: Route[] = [
        ...ROUTES,
        { method: 'GET', path: `${API_PREFIX}/status`, handler: 'get-credits', callers: 'public' },
        { method: 'POST', path: `${API_PREFIX}/videos/{video_id}/retry`, handler: 'get-video', callers: 'apiKey' },
      ];
      const changed = synthesize({ routes: extra });
      // The methods that run a function (not the mock 405s of GET and DELETE /mcp).
      const all = resourcesOf(changed.statelessTemplate, 'AWS::ApiGateway::Method')
        .map(([, m]) => m.Properties!)
        .filter((m) => m.Integration.Type !== 'MOCK');
      const publicCount = ROUTES.filter((r) => r.callers === 'public').length;
      expect(all.filter((m) => m.AuthorizationType === 'NONE')).toHaveLength(publicCount + 1);
      expect(all.filter((m) => m.AuthorizationType === 'CUSTOM')).toHaveLength(ROUTES.length - publicCount + 1);
      for (const open of all.filter((m) => m.AuthorizationType === 'NONE')) expect(open.AuthorizerId).toBeUndefined();
      // Routes sharing a handler share its function.
      expect(resourcesOf(changed.statelessTemplate, 'AWS::Lambda::Function')).toHaveLength(
        resourcesOf(template(), 'AWS::Lambda::Function').length,
      );
    });

    it("deploys the stage again when a function moves to another area (its method's integration names the area's output)", () => {
      const deploymentId = (t: typeof s.statelessTemplate) => resourcesOf(t, 'AWS::ApiGateway::Deployment').map(([id]) => id);
      const spec = specOf('get-credits') as { area: string };
      const area = spec.area;
      try {
        spec.area = 'tasks';
        const moved = synthesize();
        expect(deploymentId(moved.statelessTemplate)).toHaveLength(1);
        expect(deploymentId(moved.statelessTemplate)).not.toEqual(deploymentId(template()));
      } finally {
        spec.area = area;
      }
    });

    it("puts a route for 'session' callers behind the authorizer, which takes sessions", () => {
      const sessionRoute: Route = { method: 'GET', path: `${API_PREFIX}/console`, handler: 'get-credits', callers: 'session' };
      const s = synthesize({ routes: [...ROUTES, sessionRoute] });
      s.statelessTemplate.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: 'GET',
        AuthorizationType: 'CUSTOM',
        ResourceId: { Ref: Match.stringLikeRegexp('console') },
      });
    });

    it("puts the routes for 'session' callers (the key endpoints) behind the authorizer", () => {
      const sessionOnly = methods().filter((m) => m.path.startsWith(`${API_PREFIX}/keys`));
      expect(sessionOnly.map((m) => `${m.method} ${m.path}`).sort()).toEqual(
        ['DELETE /api/v1/keys/{key_id}', 'GET /api/v1/keys', 'PATCH /api/v1/keys/{key_id}', 'POST /api/v1/keys'],
      );
      for (const method of sessionOnly) expect([method.path, method.authorizationType]).toEqual([method.path, 'CUSTOM']);
    });

    it('refuses a route whose handler has no spec (so no function)', () => {
      expect(() =>
        synthesize({ routes: [...ROUTES, { method: 'GET', path: `${API_PREFIX}/nope`, handler: 'no-such-handler', callers: 'apiKey' }] }),
      ).toThrow('No function for handler no-such-handler.');
    });
  });
});
