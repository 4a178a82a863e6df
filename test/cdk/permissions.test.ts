import { AUTHORIZER_HANDLER, COPY_WORKER_HANDLER, ROUTES, SWEEPER_HANDLER } from '../../functions/http/routes';
import { FUNCTION_NEEDS } from '../../lib/function-permissions';
import { functionIdOf, grantsOf, synthesize, withReferenceRoutes, type Synthesized } from './support/cdk-app';

/**
 * What each function's role may do, written out by hand from the repositories in
 * functions/adapters (not derived from lib/function-permissions.ts, which is what is under test).
 * Resources are shown as: table, index/<name>, bucket, <prefix>* (objects), secret,
 * fn:<handler>, own-log-group, *.
 */
const RATE = ['dynamodb:UpdateItem table'];
const OWN_LOGS_AND_TRACES = [
  'logs:CreateLogStream own-log-group',
  'logs:PutLogEvents own-log-group',
  'xray:PutTelemetryRecords *',
  'xray:PutTraceSegments *',
];
const WRITE = (prefix: string) => [`s3:PutObject ${prefix}*`, `s3:AbortMultipartUpload ${prefix}*`];
const SECRET = ['secretsmanager:GetSecretValue secret', 'secretsmanager:DescribeSecret secret'];
const QUEUE_COPIES = [`lambda:InvokeFunction fn:${COPY_WORKER_HANDLER}`];
const TASK_WRITES = ['dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:UpdateItem table'];

const EXPECTED_REPLICATE: Record<string, string[]> = {
  [AUTHORIZER_HANDLER]: ['dynamodb:GetItem table'],
  'get-credits': [...RATE, 'dynamodb:GetItem table'],
  generate: [...TASK_WRITES, ...SECRET],
  'generate-image': [...TASK_WRITES, ...SECRET],
  'list-videos': [...RATE, 'dynamodb:GetItem table', 'dynamodb:Query index/lsi1'],
  'list-images': [...RATE, 'dynamodb:GetItem table', 'dynamodb:Query index/lsi1'],
  'get-video': [...TASK_WRITES, ...SECRET, ...QUEUE_COPIES],
  'get-image': [...TASK_WRITES, ...SECRET, ...QUEUE_COPIES],
  upload: [...RATE, ...WRITE('uploads/')],
  'create-upload': [...RATE, ...WRITE('incoming/')],
  'complete-upload': [
    ...RATE,
    's3:GetObject incoming/*',
    's3:DeleteObject incoming/*',
    ...WRITE('uploads/'),
    's3:ListBucket bucket',
  ],
  [SWEEPER_HANDLER]: [...TASK_WRITES, 'dynamodb:Query index/gsi2', ...WRITE('videos/'), ...WRITE('images/'), ...SECRET, ...QUEUE_COPIES],
  [COPY_WORKER_HANDLER]: [...TASK_WRITES, ...WRITE('videos/'), ...WRITE('images/')],
  // Public API reference: nothing but their own logs and traces.
  'get-openapi': [],
  'get-docs': [],
  'get-docs-asset': [],
};

/** With PROVIDER=simulated: no secret; the provider's own folder, and uploads as references. */
// Its own state and outputs, and reference images from any public prefix of ours.
const SIMULATED_PROVIDER = ['s3:GetObject provider-sim/*', 's3:GetObject uploads/*', 's3:GetObject videos/*', 's3:GetObject images/*', ...WRITE('provider-sim/'), 's3:ListBucket bucket'];
const withoutSecret = (grants: string[]) => grants.filter((grant) => !grant.startsWith('secretsmanager:'));
const EXPECTED_SIMULATED: Record<string, string[]> = {
  ...EXPECTED_REPLICATE,
  generate: [...withoutSecret(EXPECTED_REPLICATE.generate!), ...SIMULATED_PROVIDER],
  'generate-image': [...withoutSecret(EXPECTED_REPLICATE['generate-image']!), ...SIMULATED_PROVIDER],
  'get-video': [...withoutSecret(EXPECTED_REPLICATE['get-video']!), ...SIMULATED_PROVIDER],
  'get-image': [...withoutSecret(EXPECTED_REPLICATE['get-image']!), ...SIMULATED_PROVIDER],
  [SWEEPER_HANDLER]: [...withoutSecret(EXPECTED_REPLICATE[SWEEPER_HANDLER]!), ...SIMULATED_PROVIDER],
  // CopyObject from the simulated provider's output: GetObject on the source.
  [COPY_WORKER_HANDLER]: [...EXPECTED_REPLICATE[COPY_WORKER_HANDLER]!, 's3:GetObject provider-sim/*'],
};

function label(s: Synthesized, handler: string, resource: string): string {
  if (resource === '*') return '*';
  const template = s.statelessTemplate.toJSON();
  const logGroupRef = template.Resources[functionIdOf(s.statelessTemplate, handler)].Properties.LoggingConfig.LogGroup.Ref;
  if (resource === JSON.stringify({ 'Fn::GetAtt': [logGroupRef, 'Arn'] })) return 'own-log-group';
  const fnArn = /^\{"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]\}$/.exec(resource);
  if (fnArn) return `fn:${template.Resources[fnArn[1]!].Metadata['vidgen:handler']}`;
  if (/secretsmanager/.test(resource)) return 'secret';
  const table = /^\{"Fn::ImportValue":"[^"]*AppTable[^"]*Arn[^"]*"\}$/;
  if (table.test(resource)) return 'table';
  const index = /^\{"Fn::Join":\["",\[\{"Fn::ImportValue":"[^"]*AppTable[^"]*"\},"\/index\/([a-z0-9]+)"\]\]\}$/.exec(resource);
  if (index) return `index/${index[1]}`;
  if (/^\{"Fn::ImportValue":"[^"]*MediaBucket[^"]*Arn[^"]*"\}$/.test(resource)) return 'bucket';
  const objects = /^\{"Fn::Join":\["",\[\{"Fn::ImportValue":"[^"]*MediaBucket[^"]*"\},"\/([a-z-]+\/\*)"\]\]\}$/.exec(resource);
  if (objects) return objects[1]!;
  return `UNRECOGNISED ${resource}`;
}

function grantsAsLabels(s: Synthesized, handler: string): string[] {
  return grantsOf(s.statelessTemplate, handler).map(({ action, resource }) => `${action} ${label(s, handler, resource)}`);
}

describe('least privilege', () => {
  let replicate: Synthesized;
  let simulated: Synthesized;
  beforeAll(() => {
    replicate = synthesize({ routes: withReferenceRoutes() });
    simulated = synthesize({ context: { provider: 'simulated' }, routes: withReferenceRoutes() });
  });

  it('declares permissions for every handler in the route table', () => {
    const undeclared = withReferenceRoutes(ROUTES).map((route) => route.handler).filter((handler) => !(handler in FUNCTION_NEEDS));
    expect(undeclared).toEqual([]);
  });

  it.each(Object.keys(EXPECTED_REPLICATE))('%s gets exactly what it uses (replicate provider)', (handler) => {
    expect(grantsAsLabels(replicate, handler).sort()).toEqual([...EXPECTED_REPLICATE[handler]!, ...OWN_LOGS_AND_TRACES].sort());
  });

  it.each(Object.keys(EXPECTED_SIMULATED))('%s gets exactly what it uses (simulated provider)', (handler) => {
    expect(grantsAsLabels(simulated, handler).sort()).toEqual([...EXPECTED_SIMULATED[handler]!, ...OWN_LOGS_AND_TRACES].sort());
  });

  it('grants no wildcard actions and no "*" resource except for X-Ray', () => {
    for (const s of [replicate, simulated]) {
      for (const handler of Object.keys(EXPECTED_REPLICATE)) {
        for (const { action, resource } of grantsOf(s.statelessTemplate, handler)) {
          expect(action).not.toMatch(/\*/);
          expect(['dynamodb:*', 's3:*']).not.toContain(action);
          if (resource === '*') expect(action).toMatch(/^xray:/);
        }
      }
    }
  });

  it('never grants Query on the base table or a whole bucket object space', () => {
    for (const handler of Object.keys(EXPECTED_REPLICATE)) {
      const labels = grantsAsLabels(simulated, handler);
      expect(labels).not.toContain('dynamodb:Query table');
      expect(labels.filter((l) => l.startsWith('s3:') && l.endsWith(' *'))).toEqual([]);
    }
  });

  it('reads the token by full ARN (no wildcard) when given one', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-AbCdEf';
    const byArn = synthesize({ context: { replicateSecretArn: arn } });
    const grants = grantsOf(byArn.statelessTemplate, 'generate').filter((g) => g.action.startsWith('secretsmanager:'));
    expect(grants.map((g) => g.resource)).toEqual([arn, arn]);
    const env = byArn.statelessTemplate.toJSON().Resources[functionIdOf(byArn.statelessTemplate, 'generate')].Properties.Environment.Variables;
    expect(env.REPLICATE_API_TOKEN_SECRET_ARN).toBe(arn);
  });
});
