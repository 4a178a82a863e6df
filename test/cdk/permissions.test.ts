import { loadSpecs } from '#spec/registry';
import { functionIdOf, grantsOf, resourcesOf, synthesize, type Synthesized } from './support/cdk-app';

/**
 * What each function's role may do, written out by hand from the repositories in
 * functions/adapters (not derived from the route table's needs, which are what is under test).
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
/** The Replicate token and its webhook signing secret: every function that calls Replicate or reads its callbacks. */
const SECRET = ['secret', 'webhook-secret'].flatMap((name) => [`secretsmanager:GetSecretValue ${name}`, `secretsmanager:DescribeSecret ${name}`]);
/** Stripe's API key (calls to Stripe) and its webhook signing secret (verifying its events), apart. */
const STRIPE_KEY = ['secretsmanager:GetSecretValue stripe-key', 'secretsmanager:DescribeSecret stripe-key'];
const STRIPE_WEBHOOK_SECRET = STRIPE_KEY.map((grant) => grant.replace('stripe-key', 'stripe-webhook-secret'));
const QUEUE_COPIES = [`lambda:InvokeFunction fn:copy-output`];
const TASK_WRITES = ['dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:UpdateItem table'];
/** A background function's on-failure destination (Lambda sends the failed event there with its role). */
const DEAD_LETTERS = (name: string) => ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} dlq:${name}`);

/** Ending a task publishes it: the account's webhooks (lsi1), a delivery record, the delivery queue. */
const PUBLISH_EVENTS = [
  'dynamodb:Query index/lsi1',
  ...['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} queue:webhook-deliveries`),
];

/** Sending creates: the submission queue, where a create waits for a turn in the provider's budget. */
const QUEUE_SUBMISSIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} queue:submissions`);
/** Asking for a delivery to the customer's storage (a completion with a destination), and its next attempt. */
const QUEUE_OUTPUT_DELIVERIES = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} queue:output-deliveries`);

/**
 * The simulated provider's own folder, and reference images from any public prefix of ours: on
 * every stage, as test-mode tasks run on it whatever the stage's provider is.
 */
const SIMULATED_PROVIDER = ['s3:GetObject provider-sim/*', 's3:GetObject uploads/*', 's3:GetObject videos/*', 's3:GetObject images/*', ...WRITE('provider-sim/'), 's3:ListBucket bucket'];

const EXPECTED_REPLICATE: Record<string, string[]> = {
  // Query: a session's holder and memberships (HOLDER#h, issue 36). PutItem/UpdateItem: a holder's
  // first sign-in opens their account (holder, account, grant, member pair and team counter in one
  // transaction); a holder from before teams is adopted as its owner.
  'authorizer': ['dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:UpdateItem table', 'dynamodb:Query table'],
  'get-account': [...RATE, 'dynamodb:GetItem table', 'dynamodb:PutItem table'],
  // The retention setting (UpdateItem on the account item), then the account as GET /account reads it.
  'update-account': [...RATE, 'dynamodb:GetItem table', 'dynamodb:PutItem table'],
  // PutItem: a test key's first use opens its test balance (with its opening grant).
  'get-credits': [...RATE, 'dynamodb:GetItem table', 'dynamodb:PutItem table'],
  'list-models': [...RATE],
  // The account (a test key opens its test balance) and the first bytes of our own reference files.
  quote: [...RATE, 'dynamodb:GetItem table', 'dynamodb:PutItem table', 's3:GetObject uploads/*', 's3:GetObject videos/*', 's3:GetObject images/*', 's3:ListBucket bucket'],
  'list-transactions': [...RATE, 'dynamodb:GetItem table', 'dynamodb:PutItem table', 'dynamodb:Query index/lsi1'],
  generate: [...TASK_WRITES, ...SECRET, ...SIMULATED_PROVIDER, ...PUBLISH_EVENTS, ...QUEUE_SUBMISSIONS],
  'generate-image': [...TASK_WRITES, ...SECRET, ...SIMULATED_PROVIDER, ...PUBLISH_EVENTS, ...QUEUE_SUBMISSIONS],
  // Public, but only what applying a callback takes: the task, its copy, its ending.
  // DeleteItem: the receipt of a callback message it could not handle is given up (CALLBACK#).
  'provider-callback': [...TASK_WRITES, 'dynamodb:DeleteItem table', ...SECRET, ...SIMULATED_PROVIDER, ...QUEUE_COPIES, ...PUBLISH_EVENTS],
  'list-videos': [...RATE, 'dynamodb:GetItem table', 'dynamodb:Query index/lsi1', 'dynamodb:Query index/gsi1'],
  'list-images': [...RATE, 'dynamodb:GetItem table', 'dynamodb:Query index/lsi1', 'dynamodb:Query index/gsi1'],
  'get-video': [...TASK_WRITES, ...SECRET, ...SIMULATED_PROVIDER, ...QUEUE_COPIES, ...PUBLISH_EVENTS],
  'get-image': [...TASK_WRITES, ...SECRET, ...SIMULATED_PROVIDER, ...QUEUE_COPIES, ...PUBLISH_EVENTS],
  'cancel-video': [...TASK_WRITES, ...SECRET, ...SIMULATED_PROVIDER, ...PUBLISH_EVENTS],
  'cancel-image': [...TASK_WRITES, ...SECRET, ...SIMULATED_PROVIDER, ...PUBLISH_EVENTS],
  // No provider: the task, its objects, and the events of a completion not announced yet.
  'delete-video': [...TASK_WRITES, 's3:DeleteObject videos/*', ...PUBLISH_EVENTS],
  'delete-image': [...TASK_WRITES, 's3:DeleteObject images/*', ...PUBLISH_EVENTS],
  upload: [...RATE, ...WRITE('uploads/')],
  'create-upload': [...RATE, ...WRITE('incoming/')],
  'complete-upload': [
    ...RATE,
    // The upload's publication claim and answer.
    'dynamodb:GetItem table',
    'dynamodb:PutItem table',
    'dynamodb:DeleteItem table',
    's3:GetObject incoming/*',
    's3:DeleteObject incoming/*',
    ...WRITE('uploads/'),
    's3:ListBucket bucket',
  ],
  'sweeper': [...TASK_WRITES, 'dynamodb:Query index/gsi2', ...WRITE('videos/'), ...WRITE('images/'), 's3:DeleteObject videos/*', 's3:DeleteObject images/*', ...SECRET, ...SIMULATED_PROVIDER, ...QUEUE_COPIES, ...DEAD_LETTERS('sweeper'), ...PUBLISH_EVENTS, ...QUEUE_SUBMISSIONS],
  // CopyObject from the simulated provider's output (test mode): GetObject on the source.
  // Reads videos/ back: a video's first frame is made from our copy (the thumbnail).
  // A copy whose task ended meanwhile (canceled, timed out) or whose output is refused is removed again.
  'copy-output': [
    ...TASK_WRITES,
    ...WRITE('videos/'),
    ...WRITE('images/'),
    's3:DeleteObject videos/*',
    's3:DeleteObject images/*',
    's3:GetObject provider-sim/*',
    's3:GetObject videos/*',
    ...DEAD_LETTERS('copy-worker'),
    ...PUBLISH_EVENTS,
    ...QUEUE_OUTPUT_DELIVERIES,
  ],
  // Streams our copy to the customer's URL; with keep_output false deletes it once delivered;
  // a give-up publishes its event; a retry goes back on its own queue.
  'deliver-output': [
    'dynamodb:GetItem table',
    'dynamodb:UpdateItem table',
    'dynamodb:PutItem table',
    's3:GetObject videos/*',
    's3:GetObject images/*',
    's3:DeleteObject videos/*',
    's3:DeleteObject images/*',
    ...PUBLISH_EVENTS,
    ...QUEUE_OUTPUT_DELIVERIES,
    ...['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} queue:output-deliveries`),
  ],
  // Consumes the submission queue and sends back what must wait longer.
  'submission-consumer': [
    ...TASK_WRITES,
    ...SECRET,
    ...SIMULATED_PROVIDER,
    ...PUBLISH_EVENTS,
    ...QUEUE_SUBMISSIONS,
    ...['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => `${action} queue:submissions`),
  ],
  // Public, verified by Stripe's signature: the account, purchase and customer items, the ledger; never Stripe's API key.
  'stripe-webhook': [...TASK_WRITES, ...STRIPE_WEBHOOK_SECRET],
  // Public API reference: nothing but their own logs and traces.
  'get-openapi': [],
  'get-docs': [],
  'get-docs-asset': [],
};

const withoutSecret = (grants: string[]) => grants.filter((grant) => !grant.startsWith('secretsmanager:') || grant.includes(' stripe-'));
/** With PROVIDER=simulated: the same, without Replicate's secrets. */
const EXPECTED_SIMULATED: Record<string, string[]> = Object.fromEntries(
  Object.entries(EXPECTED_REPLICATE).map(([handler, grants]) => [handler, withoutSecret(grants)]),
);

function label(s: Synthesized, handler: string, resource: string): string {
  if (resource === '*') return '*';
  const template = s.statelessTemplate.toJSON();
  const logGroupRef = template.Resources[functionIdOf(s.statelessTemplate, handler)].Properties.LoggingConfig.LogGroup.Ref;
  if (resource === JSON.stringify({ 'Fn::GetAtt': [logGroupRef, 'Arn'] })) return 'own-log-group';
  for (const dlq of Object.values(s.stateless.deadLetterQueues)) {
    if (resource === JSON.stringify(s.stateless.resolve(dlq.queue.queueArn))) return `dlq:${dlq.name}`;
  }
  for (const work of s.stateless.workQueues) {
    if (resource === JSON.stringify(s.stateless.resolve(work.queue.queueArn))) return `queue:${work.name}`;
  }
  const fnArn = /^\{"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]\}$/.exec(resource);
  if (fnArn) return `fn:${template.Resources[fnArn[1]!].Metadata['vidgen:handler']}`;
  if (/secretsmanager/.test(resource) && /stripe/.test(resource)) return /webhook/.test(resource) ? 'stripe-webhook-secret' : 'stripe-key';
  if (/secretsmanager/.test(resource)) return /webhook/.test(resource) ? 'webhook-secret' : 'secret';
  // The table and bucket ARNs are built from their names, read from SSM (lib/shared-parameters.ts).
  const { table, mediaBucket } = s.stateless.data;
  const resolved = (value: string) => JSON.stringify(s.stateless.resolve(value));
  if (resource === resolved(table.tableArn)) return 'table';
  for (const index of ['gsi1', 'gsi2', 'lsi1']) if (resource === resolved(`${table.tableArn}/index/${index}`)) return `index/${index}`;
  if (resource === resolved(mediaBucket.bucketArn)) return 'bucket';
  const prefix = ['uploads/', 'incoming/', 'videos/', 'images/', 'provider-sim/'].find((p) => resource === resolved(mediaBucket.arnForObjects(`${p}*`)));
  if (prefix) return `${prefix}*`;
  return `UNRECOGNISED ${resource}`;
}

function grantsAsLabels(s: Synthesized, handler: string): string[] {
  return grantsOf(s.statelessTemplate, handler).map(({ action, resource }) => `${action} ${label(s, handler, resource)}`);
}

describe('least privilege', () => {
  let replicate: Synthesized;
  let simulated: Synthesized;
  beforeAll(() => {
    replicate = synthesize();
    simulated = synthesize({ context: { provider: 'simulated' } });
  });

  it('makes one function per spec (functions/handlers/*.spec.ts)', () => {
    const names = loadSpecs().map((spec) => spec.name).sort();
    const made = resourcesOf(replicate.statelessTemplate, 'AWS::Lambda::Function').flatMap(([, fn]) => (fn.Metadata?.['vidgen:handler'] as string | undefined) ?? []);
    expect(made.sort()).toEqual(names);
    expect(Object.keys(EXPECTED_REPLICATE).filter((handler) => !names.includes(handler))).toEqual([]);
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
      // The authorizer's one exception: a session's holder item and memberships are one partition,
      // HOLDER#<sub> (issue 36, design §0.2), read with one Query where a GetItem was before.
      if (handler !== 'authorizer') expect(labels).not.toContain('dynamodb:Query table');
      expect(labels.filter((l) => l.startsWith('s3:') && l.endsWith(' *'))).toEqual([]);
    }
  });

  it('lets invite-member alone send mail: ses:SendEmail on the stage\'s one SES identity, from MAIL_FROM only; none without a sender', () => {
    const withMail = synthesize({ context: { provider: 'simulated', mailFromAddress: 'invites@example.com' } });
    const senders = loadSpecs().filter((spec) => grantsOf(withMail.statelessTemplate, spec.name).some((grant) => grant.action.startsWith('ses:')));
    expect(senders.map((spec) => spec.name)).toEqual(['invite-member']);
    const [send, ...others] = grantsOf(withMail.statelessTemplate, 'invite-member').filter((grant) => grant.action.startsWith('ses:'));
    expect(others).toEqual([]);
    expect(send).toMatchObject({ action: 'ses:SendEmail', condition: { StringEquals: { 'ses:FromAddress': 'invites@example.com' } } });
    expect(send!.resource).toContain(':identity/example.com');
    expect(send!.resource).not.toContain('*');
    const env = withMail.statelessTemplate.toJSON().Resources[functionIdOf(withMail.statelessTemplate, 'invite-member')].Properties.Environment.Variables;
    expect(env.MAIL_FROM).toBe('invites@example.com');
    // The identity itself is the stateful stack's (a domain: Easy DKIM).
    expect(resourcesOf(withMail.statefulTemplate, 'AWS::SES::EmailIdentity').map(([, identity]) => identity.Properties!.EmailIdentity)).toEqual(['example.com']);
    // Without a sender (dev): no grant, no variable, no identity; the function logs the mail.
    expect(grantsOf(simulated.statelessTemplate, 'invite-member').filter((grant) => grant.action.startsWith('ses:'))).toEqual([]);
    expect(resourcesOf(simulated.statefulTemplate, 'AWS::SES::EmailIdentity')).toEqual([]);
  });

  it('reads the token by full ARN (no wildcard) when given one', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-AbCdEf';
    const webhookArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-webhook-GhIjKl';
    const byArn = synthesize({ context: { replicateSecretArn: arn, replicateWebhookSecretArn: webhookArn } });
    const grants = grantsOf(byArn.statelessTemplate, 'generate').filter((g) => g.action.startsWith('secretsmanager:'));
    expect(grants.map((g) => g.resource).sort()).toEqual([arn, arn, webhookArn, webhookArn].sort());
    const env = byArn.statelessTemplate.toJSON().Resources[functionIdOf(byArn.statelessTemplate, 'generate')].Properties.Environment.Variables;
    expect(env.REPLICATE_API_TOKEN_SECRET_ARN).toBe(arn);
    expect(env.REPLICATE_WEBHOOK_SECRET_ARN).toBe(webhookArn);
  });
});
