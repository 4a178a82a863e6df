import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { ROUTES } from '#http/routes/index';
import { specOf } from '#spec/registry';
import { WorkQueue } from '#lib/constructs/work-queue';
import { DeploySettingsError, readDeploySettings } from '#lib/deploy-settings';
import { functionIdOf, resourcesOf, synthesize, type Synthesized } from './support/cdk-app';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:vidgen-alarms';
const PROD = {
  stage: 'prod',
  mailFromAddress: 'invites@example.com',
  replicateSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-AbCdEf',
};

describe('operations: background functions, alarms, dashboard', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
  });
  const template = () => s.statelessTemplate;
  const resources = () => template().toJSON().Resources as Record<string, any>;
  const alarms = () => resourcesOf(template(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
  const named = (suffix: string) => alarms().find((a) => a.AlarmName === `vidgen-dev-${suffix}`);
  /** A function's own alarm: in its area's stack, named after the area too. */
  const functionAlarm = (kind: 'errors' | 'throttles', handler: string) => named(`${specOf(handler).area}-${kind}-${handler}`);
  const queueIds = () => resourcesOf(template(), 'AWS::SQS::Queue').map(([id]) => id);
  const queueOf = (prefix: string) => {
    const id = queueIds().find((q) => q.startsWith(prefix));
    if (!id) throw new Error(`no queue ${prefix}`);
    return id;
  };

  describe('API Gateway execution logs', () => {
    it("get a retention on the group API Gateway writes to (created by it or not)", () => {
      const apiId = resourcesOf(template(), 'AWS::ApiGateway::RestApi')[0]![0];
      template().hasResourceProperties('Custom::LogRetention', {
        LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, '/dev']] },
        RetentionInDays: 14,
      });
    });
  });

  describe('background functions', () => {
    it('send failed asynchronous invocations of the copy worker and the sweeper to their own dead-letter queues', () => {
      for (const [handler, queue, retries] of [
        ['copy-output', 'CopyWorkerFailures', 2],
        ['sweeper', 'SweeperFailures', 0],
      ] as const) {
        template().hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
          FunctionName: { Ref: functionIdOf(template(), handler) },
          MaximumRetryAttempts: retries,
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueOf(queue), 'Arn'] } } },
        });
      }
    });

    it('give the sweep schedule a dead-letter queue EventBridge may write to', () => {
      const [ruleId, rule] = resourcesOf(template(), 'AWS::Events::Rule')[0]!;
      const queue = queueOf('SweepScheduleFailures');
      expect(rule.Properties!.Targets[0].DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [queue, 'Arn'] } });
      const policy = resourcesOf(template(), 'AWS::SQS::QueuePolicy').find(([, p]) =>
        (p.Properties!.Queues as Array<{ Ref: string }>).some((q) => q.Ref === queue),
      )![1];
      expect(policy.Properties!.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ruleId, 'Arn'] } } },
          }),
        ]),
      );
    });

    it('keep dead letters encrypted, over TLS only, for 14 days', () => {
      // The three Lambda/EventBridge dead-letter queues and the work queues' redrive targets.
      const deadLetters = queueIds().filter((id) => !/^(WebhookDeliveries|Submissions|OutputDeliveries)Queue/.test(id));
      expect(deadLetters).toHaveLength(6);
      for (const id of deadLetters) {
        expect(resources()[id].Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
        const policy = resourcesOf(template(), 'AWS::SQS::QueuePolicy').find(([, p]) =>
          (p.Properties!.Queues as Array<{ Ref: string }>).some((q) => q.Ref === id),
        );
        expect(policy?.[1].Properties!.PolicyDocument.Statement).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        );
      }
    });

    it('reserve (and so cap) the concurrency of the background functions only, configurable and removable', () => {
      const reserved = (t: typeof s.statelessTemplate, handler: string) =>
        t.toJSON().Resources[functionIdOf(t, handler)].Properties.ReservedConcurrentExecutions;
      expect(reserved(template(), 'copy-output')).toBe(10);
      expect(reserved(template(), 'sweeper')).toBe(2);
      for (const handler of ['authorizer', ...ROUTES.map((r) => r.handler)]) {
        expect([handler, reserved(template(), handler)]).toEqual([handler, undefined]);
      }
      const tuned = synthesize({ context: { copyWorkerConcurrency: '25', sweeperConcurrency: '0' } }).statelessTemplate;
      expect(reserved(tuned, 'copy-output')).toBe(25);
      expect(reserved(tuned, 'sweeper')).toBeUndefined();
    });

    it('alarm on throttling of a capped function only when it lasts 15 minutes (a burst waits by design)', () => {
      expect(functionAlarm('throttles', 'copy-output')).toMatchObject({ EvaluationPeriods: 3, Period: 300 });
      expect(functionAlarm('throttles', 'sweeper')).toMatchObject({ EvaluationPeriods: 3 });
      expect(functionAlarm('throttles', 'generate')).toMatchObject({ EvaluationPeriods: 1 });
    });
  });

  describe('alarms', () => {
    it('watch errors of every API function (the authorizer through its access-log filter instead)', () => {
      const api = [...new Set(ROUTES.map((r) => r.handler))];
      for (const handler of api) {
        expect(functionAlarm('errors', handler)).toMatchObject({
          MetricName: 'Errors',
          Namespace: 'AWS/Lambda',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionIdOf(template(), handler) } }],
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
      expect(functionAlarm('errors', 'authorizer')).toBeUndefined();
      expect(named('copy-worker-errors')).toMatchObject({ MetricName: 'Errors' });
    });

    it('watch the refund ratio over an hour, only once enough tasks started', () => {
      const alarm = named('refund-ratio')!;
      const expression = alarm.Metrics.find((m: { Expression?: string }) => m.Expression);
      expect(expression.Expression).toBe('IF(FILL(started, 0) >= 5, FILL(refunded, 0) / started, 0)');
      expect(alarm.Threshold).toBe(0.25);
      const metric = (id: string) => alarm.Metrics.find((m: { Id: string }) => m.Id === id).MetricStat;
      for (const [id, name] of [['started', 'TaskStarted'], ['refunded', 'TaskRefunded']]) {
        expect(metric(id!)).toEqual({
          Metric: { Namespace: 'VidGen', MetricName: name, Dimensions: [{ Name: 'service', Value: 'vidgen-dev' }] },
          Period: 3600,
          Stat: 'Sum',
        });
      }
    });

    it('watch provider failures (ProviderError, service dimension only)', () => {
      expect(named('provider-errors')).toMatchObject({
        Namespace: 'VidGen',
        MetricName: 'ProviderError',
        Dimensions: [{ Name: 'service', Value: 'vidgen-dev' }],
        Period: 600,
        Statistic: 'Sum',
        Threshold: 3,
      });
    });

    it('alarm as soon as a provider\'s circuit opens (CircuitOpened, any provider)', () => {
      expect(named('provider-circuit-opened')).toMatchObject({
        Namespace: 'VidGen',
        MetricName: 'CircuitOpened',
        Dimensions: [{ Name: 'service', Value: 'vidgen-dev' }],
        Period: 300,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('alarm when an invitation mail could not be sent (InvitationMailFailed)', () => {
      expect(named('invitation-mail-failed')).toMatchObject({
        Namespace: 'VidGen',
        MetricName: 'InvitationMailFailed',
        Dimensions: [{ Name: 'service', Value: 'vidgen-dev' }],
        Period: 300,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('watch throttling on the table and both global indexes (API keys, the in-flight shards)', () => {
      const indexes = (named('dynamodb-throttles')!.Metrics as Array<{ MetricStat?: { Metric: { Dimensions: Array<{ Name: string; Value: unknown }> } } }>)
        .flatMap((m) => m.MetricStat?.Metric.Dimensions ?? [])
        .filter((d) => d.Name === 'GlobalSecondaryIndexName')
        .map((d) => d.Value);
      expect([...new Set(indexes)].sort()).toEqual(['gsi1', 'gsi2']);
    });

    it('watch the depth of every dead-letter queue', () => {
      const watched = alarms()
        .filter((a) => a.MetricName === 'ApproximateNumberOfMessagesVisible')
        .map((a) => a.Dimensions[0].Value['Fn::GetAtt'][0]);
      // Dead-letter queues: Lambda on-failure destinations, EventBridge target DLQs, redrive targets.
      const text = JSON.stringify(template().toJSON().Resources);
      const deadLetterIds = queueIds().filter((id) =>
        [`"Destination":{"Fn::GetAtt":["${id}","Arn"]}`, `"DeadLetterConfig":{"Arn":{"Fn::GetAtt":["${id}","Arn"]}}`, `"deadLetterTargetArn":{"Fn::GetAtt":["${id}","Arn"]}`].some(
          (reference) => text.includes(reference),
        ),
      );
      expect(deadLetterIds).toHaveLength(6);
      expect(watched.sort()).toEqual(deadLetterIds.sort());
      expect(named('dlq-submissions')).toBeDefined();
      expect(named('dlq-output-deliveries')).toBeDefined();
      expect(named('dlq-copy-worker')).toMatchObject({ Threshold: 1, Statistic: 'Maximum' });
      expect(named('dlq-sweeper')).toBeDefined();
      expect(named('dlq-sweep-schedule')).toBeDefined();
    });

    it('notice a stopped sweeper: fewer than one run in 10 minutes, silence counting as stopped', () => {
      expect(named('sweeper-stopped')).toMatchObject({
        MetricName: 'Invocations',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionIdOf(template(), 'sweeper') } }],
        Period: 600,
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
      });
    });

    it('have unique names and a description each', () => {
      const names = alarms().map((a) => a.AlarmName as string);
      expect(new Set(names).size).toBe(names.length);
      for (const alarm of alarms()) expect(alarm.AlarmDescription.length).toBeGreaterThan(20);
    });
  });

  describe('alarm notifications', () => {
    it('are required in prod: synth stops with the keys to set', () => {
      const settings = (context: Record<string, unknown>) => readDeploySettings((key) => context[key], {});
      expect(() => settings(PROD)).toThrow(DeploySettingsError);
      expect(() => settings(PROD)).toThrow(/stage=prod needs somewhere to send alarms: pass -c alarmTopicArn=.* or -c alarmEmail=/);
      expect(() => settings({ ...PROD, alarmTopicArn: TOPIC })).not.toThrow();
      expect(() => settings({ ...PROD, alarmEmail: 'ops@example.com' })).not.toThrow();
      expect(() => settings({ alarmEmail: 'not-an-address' })).toThrow(/"alarmEmail" must be e-mail addresses/);
      expect(() => settings({ alarmTopicArn: 'arn:aws:sqs:eu-west-1:123456789012:q' })).toThrow(/SNS topic ARN/);
    });

    it('go to a topic of the stack, KMS-encrypted so CloudWatch can publish, with each address subscribed', () => {
      const withEmail = synthesize({ context: { alarmEmail: 'ops@example.com, oncall@example.com' } }).statelessTemplate;
      const [topicId, topic] = resourcesOf(withEmail, 'AWS::SNS::Topic')[0]!;
      const [keyId, key] = resourcesOf(withEmail, 'AWS::KMS::Key')[0]!;
      expect(topic.Properties!.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      expect(key.Properties!.EnableKeyRotation).toBe(true);
      expect(key.Properties!.KeyPolicy.Statement).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          }),
        ]),
      );
      const subscriptions = resourcesOf(withEmail, 'AWS::SNS::Subscription').map(([, sub]) => sub.Properties!);
      expect(subscriptions.map((sub) => [sub.Protocol, sub.Endpoint, sub.TopicArn])).toEqual([
        ['email', 'ops@example.com', { Ref: topicId }],
        ['email', 'oncall@example.com', { Ref: topicId }],
      ]);
      for (const [, alarm] of resourcesOf(withEmail, 'AWS::CloudWatch::Alarm')) {
        expect(alarm.Properties!.AlarmActions).toEqual([{ Ref: topicId }]);
      }
    });
  });

  describe('dashboard', () => {
    it('is one, named per stage and region, showing every alarm and the business metrics', () => {
      const dashboards = resourcesOf(template(), 'AWS::CloudWatch::Dashboard');
      expect(dashboards).toHaveLength(1);
      const [, dashboard] = dashboards[0]!;
      expect(dashboard.Properties!.DashboardName).toEqual({ 'Fn::Join': ['', ['vidgen-dev-', { Ref: 'AWS::Region' }]] });
      const body = JSON.stringify(dashboard.Properties!.DashboardBody);
      for (const metric of ['TaskStarted', 'TaskCompleted', 'TaskFailed', 'TaskRefunded', 'TaskCanceled', 'ProviderLatency', 'ProviderError', 'SweeperTasksExamined']) {
        expect(body).toContain(`"${metric}\\"`);
      }
      const alarmIds = resourcesOf(template(), 'AWS::CloudWatch::Alarm').map(([id]) => id);
      for (const id of alarmIds) expect(body).toContain(`"Fn::GetAtt":["${id}","Arn"]`);
    });

    it('shows each provider apart: creates, failures by kind, failovers, skips, circuit openings, time to accept', () => {
      const [, dashboard] = resourcesOf(template(), 'AWS::CloudWatch::Dashboard')[0]!;
      const body = JSON.stringify(dashboard.Properties!.DashboardBody);
      for (const [metric, dimensions] of [
        ['ProviderSubmission', 'service,provider'],
        ['ProviderFailure', 'service,kind,provider'],
        ['ProviderFailover', 'service,provider'],
        ['ProviderSkipped', 'service,provider'],
        ['CircuitOpened', 'service,provider'],
        ['ProviderLatency', 'service,operation,provider'],
      ]) {
        expect(body).toMatch(new RegExp(`\\{VidGen,${dimensions}\\} MetricName=\\W+${metric}\\W`));
      }
    });
  });
});

describe('WorkQueue (queues between functions, e.g. webhook deliveries)', () => {
  // In isolation: the stack creates one per queue a function consumes.
  it('redrives to its own encrypted dead-letter queue and feeds its consumer with batch item failures, capped', () => {
    const stack = new Stack(new App(), 'Q');
    const consumer = new LambdaFunction(stack, 'Consumer', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
      timeout: Duration.seconds(30),
    });
    const work = new WorkQueue(stack, 'WebhookDeliveries', {
      name: 'webhook-deliveries',
      purpose: 'webhook delivery attempts',
      consumerTimeout: Duration.seconds(30),
    });
    work.consumeWith(consumer, { maxConcurrency: 5 });
    const template = Template.fromStack(stack);
    const queues = Object.entries(template.toJSON().Resources as Record<string, any>).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
    const [mainId, main] = queues.find(([, q]) => q.Properties.RedrivePolicy)!;
    const [dlqId, dlq] = queues.find(([id]) => id !== mainId)!;
    expect(main.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(dlq.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(work.deadLetters.name).toBe('webhook-deliveries');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [mainId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 5 },
    });
  });
});
