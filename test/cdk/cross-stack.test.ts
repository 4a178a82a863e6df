import { sharedParameterName } from '#lib/shared-parameters';
import { resourcesOf, synthesize, type Synthesized } from './support/cdk-app';

/**
 * Issue 13: with -c cdnDomainName the stateful stack stopped exporting the CDN domain that the
 * deployed stateless stack imported, so `cdk deploy --all` failed with "export ... in use".
 * CloudFormation's rule, checked here for every transition: when a stateful stack is deployed,
 * every export the deployed stateless stack imports must still be exported, with the same value.
 */

/**
 * What stateless stacks deployed before the SSM parameters import: recorded from `npm run synth`
 * of the commit before this change (0d3dc14), with and without -c cdnDomainName (the CDN domain
 * export was imported only without it). These stacks exist in AWS; the new stateful stack must
 * keep exporting all of them until each has been redeployed.
 */
const IMPORTED_BEFORE_SSM = [
  'VidGen-dev-Stateful:ExportsOutputFnGetAttAppTableA64782C6ArnB5C1F6C9',
  'VidGen-dev-Stateful:ExportsOutputFnGetAttMediaBucket4022EBBFArnD921DB08',
  'VidGen-dev-Stateful:ExportsOutputFnGetAttMediaCdnA34AD802DomainNameF0D7E058',
  'VidGen-dev-Stateful:ExportsOutputRefAppTableA64782C63B04E2FD',
  'VidGen-dev-Stateful:ExportsOutputRefMediaBucket4022EBBF1EAE4563',
];

const CUSTOM_CDN = {
  cdnDomainName: 'media.example.com',
  cdnCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
};

type Outputs = Record<string, { Value: unknown; Export?: { Name: string } }>;
const outputsOf = (s: Synthesized) => s.statefulTemplate.toJSON().Outputs as Outputs;
const exportsOf = (s: Synthesized) =>
  new Map(Object.values(outputsOf(s)).filter((o) => o.Export).map((o) => [o.Export!.Name, JSON.stringify(o.Value)]));

/** Every Fn::ImportValue anywhere in a template. */
function importsOf(template: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'Fn::ImportValue') found.push(typeof value === 'string' ? value : JSON.stringify(value));
        walk(value);
      }
    }
  };
  walk(template);
  return found;
}

describe('cross-stack values survive changes of deploy settings', () => {
  let plain: Synthesized;
  let custom: Synthesized;
  beforeAll(() => {
    plain = synthesize();
    custom = synthesize({ context: CUSTOM_CDN });
  });

  it('the stateless stack imports nothing from the stateful stack (so no export can be "in use")', () => {
    expect(importsOf(plain.statelessTemplate.toJSON())).toEqual([]);
    expect(importsOf(custom.statelessTemplate.toJSON())).toEqual([]);
  });

  it('the stateful stack has the same outputs and exports, by name, with and without a custom CDN domain', () => {
    expect(Object.keys(outputsOf(custom)).sort()).toEqual(Object.keys(outputsOf(plain)).sort());
    expect([...exportsOf(custom).keys()].sort()).toEqual([...exportsOf(plain).keys()].sort());
    // The kept exports carry the same values too (CloudFormation refuses to change an imported export).
    expect(exportsOf(custom)).toEqual(exportsOf(plain));
  });

  it.each([
    ['before SSM (deployed)', 'plain'],
    ['before SSM (deployed)', 'custom'],
    ['plain', 'custom'],
    ['custom', 'plain'],
  ] as const)('deploying the stateful stack %s -> %s keeps every export the deployed stateless stack imports', (from, to) => {
    const deployed = { plain, custom };
    const imported = from === 'before SSM (deployed)' ? IMPORTED_BEFORE_SSM : importsOf(deployed[from].statelessTemplate.toJSON());
    const exported = exportsOf(deployed[to]);
    expect(imported.filter((name) => !exported.has(name))).toEqual([]);
  });

  it('the stateful stack writes the values to SSM, and the stateless stack reads them at deploy time', () => {
    for (const [s, cdnUrl] of [
      [plain, { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [expect.stringMatching(/^MediaCdn/), 'DomainName'] }]] }],
      [custom, 'https://media.example.com'],
    ] as const) {
      const written = Object.fromEntries(
        resourcesOf(s.statefulTemplate, 'AWS::SSM::Parameter').map(([, p]) => [p.Properties!.Name, p.Properties!.Value]),
      );
      expect(written).toEqual({
        [sharedParameterName('dev', 'tableName')]: { Ref: expect.stringMatching(/^AppTable/) },
        [sharedParameterName('dev', 'mediaBucketName')]: { Ref: expect.stringMatching(/^MediaBucket/) },
        [sharedParameterName('dev', 'publicMediaBaseUrl')]: cdnUrl,
        [sharedParameterName('dev', 'identityIssuer')]: { 'Fn::GetAtt': [expect.stringMatching(/^AccountHoldersUserPool/), 'ProviderURL'] },
        [sharedParameterName('dev', 'userPoolClientId')]: { Ref: expect.stringMatching(/^AccountHoldersUserPoolConsoleClient/) },
      });
      const parameters = s.statelessTemplate.toJSON().Parameters as Record<string, { Type: string; Default: string }>;
      for (const key of ['tableName', 'mediaBucketName', 'publicMediaBaseUrl', 'identityIssuer', 'userPoolClientId'] as const) {
        const read = Object.values(parameters).filter((p) => p.Default === sharedParameterName('dev', key));
        expect(read).toEqual([expect.objectContaining({ Type: 'AWS::SSM::Parameter::Value<String>' })]);
      }
    }
  });

  it('still deploys the stateful stack first', () => {
    expect(plain.stateless.dependencies).toContain(plain.stateful);
  });

  it('names the parameters per stage', () => {
    const prod = synthesize({
      context: {
        stage: 'prod',
        replicateSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-AbCdEf',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:vidgen-alarms',
        mailFromAddress: 'invites@example.com',
      },
    });
    const names = resourcesOf(prod.statefulTemplate, 'AWS::SSM::Parameter').map(([, p]) => p.Properties!.Name as string);
    expect(names.sort()).toEqual([
      '/vidgen/prod/identity-issuer',
      '/vidgen/prod/media-bucket-name',
      '/vidgen/prod/public-media-base-url',
      '/vidgen/prod/table-name',
      '/vidgen/prod/user-pool-client-id',
    ]);
  });
});
