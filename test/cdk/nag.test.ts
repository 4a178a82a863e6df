import { Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { ROUTES } from '#http/routes/index';
import { synthesize, type Synthesized } from './support/cdk-app';

/** Every acknowledgment in the app: construct path, rule id and reason. */
function acknowledgments(root: IConstruct) {
  const found: Array<{ path: string; id: string; reason: string }> = [];
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return found;
}

const PROD_CONTEXT = {
  stage: 'prod',
  mailFromAddress: 'invites@example.com',
  replicateSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-AbCdEf',
  replicateWebhookSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-webhook-GhIjKl',
  apiDomainName: 'api.example.com',
  apiCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  cdnDomainName: 'media.example.com',
  cdnCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  consoleDomainName: 'console.example.com',
  consoleCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
  apiWebAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/vidgen/abc',
  cdnWebAclArn: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/vidgen/abc',
  alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:vidgen-alarms',
  stripeSecretKeySecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/stripe-secret-key-KlMnOp',
  stripeWebhookSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/stripe-webhook-secret-QrStUv',
};

const ACKNOWLEDGEABLE = [
  'AwsSolutions-IAM5',
  'AwsSolutions-IAM4',
  'AwsSolutions-S1',
  'AwsSolutions-APIG2',
  'AwsSolutions-APIG3',
  'AwsSolutions-APIG4',
  'AwsSolutions-COG4',
  // The user pool: MFA optional (self sign-up); the Plus plan's threat protection in production only.
  'AwsSolutions-COG2',
  'AwsSolutions-COG8',
  'AwsSolutions-CFR1',
  'AwsSolutions-CFR2',
  'AwsSolutions-CFR4',
  // Dead-letter queues of Lambda destinations and EventBridge targets (cdk-nag only recognises redrive policies).
  'AwsSolutions-SQS3',
  // CDN standard logs where CloudFront cannot deliver them (opt-in regions) or when switched off.
  'AwsSolutions-CFR3',
  // CDK's BucketDeployment handler (the console), whose runtime aws-cdk-lib chooses.
  'AwsSolutions-L1',
];

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['dev defaults (replicate, secret by name, no domains)', {}, ROUTES],
    ['prod with domains, web ACLs and a secret ARN', PROD_CONTEXT, ROUTES],
    ['the simulated provider', { provider: 'simulated' }, ROUTES],
    ['alarms by e-mail (a topic of its own, KMS-encrypted)', { alarmEmail: 'ops@example.com' }, ROUTES],
    ['an opt-in region (no CDN standard logs there)', { region: 'af-south-1', account: '123456789012' }, ROUTES],
    ['CDN logs switched off', { cdnLogs: 'false' }, ROUTES],
  ])('passes for %s, every suppression with a reason', (_name, context, routes) => {
    // synthesize() runs the checks during synthesis (Validations.of(app).addPlugins) and throws on a finding.
    const s = synthesize({ context, routes });
    expect(s.nag.lastReport).toEqual({ success: true, violations: [] });
    const acks = acknowledgments(s.app).filter((ack) => ack.id.startsWith('AwsSolutions-'));
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) expect(ack.reason.length).toBeGreaterThan(40);
    // Only these rules are ever acknowledged; anything else must be fixed, not suppressed.
    const rules = new Set(acks.map((ack) => ack.id.replace(/\[.*$/, '')));
    expect([...rules].filter((rule) => !ACKNOWLEDGEABLE.includes(rule))).toEqual([]);
  });

  it('drops the WAF and TLS-policy suppressions when web ACLs and domains are configured', () => {
    const s = synthesize({ context: PROD_CONTEXT });
    const ids = acknowledgments(s.app).map((ack) => ack.id);
    expect(ids).not.toContain('AwsSolutions-APIG3');
    expect(ids).not.toContain('AwsSolutions-CFR2');
    expect(ids).not.toContain('AwsSolutions-CFR4');
    expect(ids.filter((id) => id.includes('??????'))).toEqual([]);
  });

  it('acknowledges IAM5 only for X-Ray, bucket prefixes and a secret named without its suffix (and the console deployment\'s grants)', () => {
    const s = synthesize();
    const iam5 = acknowledgments(s.app)
      .filter((ack) => ack.id.startsWith('AwsSolutions-IAM5'))
      .filter((ack) => !ack.path.includes('/Console/') && !ack.path.includes('CDKBucketDeployment'));
    for (const { id } of iam5) {
      expect(id).toMatch(/^AwsSolutions-IAM5\[Resource::(\*|.*MediaBucket.*\/(videos|images|uploads|incoming|provider-sim)\/\*|.*:secret:vidgen\/dev\/(replicate-api-token|replicate-webhook-secret|stripe-secret-key|stripe-webhook-secret)-\?\?\?\?\?\?)\]$/);
    }
  });

  it('fails synthesis on an unacknowledged finding', () => {
    let built: Synthesized | undefined;
    expect(() =>
      synthesize({
        // A bucket without TLS enforcement or access logs.
        beforeSynth: (app) => {
          built = app;
          new Bucket(app.stateful, 'CarelessBucket');
        },
      }),
    ).toThrow(/AwsSolutions-S10/);
    expect(built?.nag.lastReport?.violations.map((v) => v.ruleName).sort()).toEqual(['AwsSolutions-S1', 'AwsSolutions-S10']);
  });
});
