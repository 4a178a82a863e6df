import { Match } from 'aws-cdk-lib/assertions';
import { createTableInput } from '#adapters/dynamodb/table-definition';
import { resourcesOf, synthesize, type Synthesized } from './support/cdk-app';

describe('StatefulStack', () => {
  let dev: Synthesized;
  let prod: Synthesized;
  beforeAll(() => {
    dev = synthesize();
    prod = synthesize({
      context: {
        stage: 'prod',
        replicateSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:vidgen/prod/replicate-AbCdEf',
        alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:vidgen-alarms',
        mailFromAddress: 'invites@example.com',
      },
    });
  });

  describe('table', () => {
    it('deploys the same keys and indexes the local stack creates, with TTL and PITR', () => {
      const local = createTableInput('any');
      dev.statefulTemplate.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        KeySchema: local.KeySchema,
        AttributeDefinitions: Match.arrayEquals(local.AttributeDefinitions!),
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: local.GlobalSecondaryIndexes![0]!.IndexName,
            KeySchema: local.GlobalSecondaryIndexes![0]!.KeySchema,
            Projection: { ProjectionType: 'ALL' },
          }),
          Match.objectLike({
            IndexName: local.GlobalSecondaryIndexes![1]!.IndexName,
            KeySchema: local.GlobalSecondaryIndexes![1]!.KeySchema,
            Projection: { ProjectionType: 'KEYS_ONLY' },
          }),
        ],
        LocalSecondaryIndexes: [
          Match.objectLike({
            IndexName: local.LocalSecondaryIndexes![0]!.IndexName,
            KeySchema: local.LocalSecondaryIndexes![0]!.KeySchema,
            Projection: { ProjectionType: 'ALL' },
          }),
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      });
    });

    it('is retained and deletion-protected in prod only', () => {
      prod.statefulTemplate.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
      prod.statefulTemplate.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
      });
      dev.statefulTemplate.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    });

    it('exports its name for the admin CLI', () => {
      dev.statefulTemplate.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('AppTable') } });
    });
  });

  describe('media bucket', () => {
    const mediaBucket = (s: Synthesized) => {
      const found = resourcesOf(s.statefulTemplate, 'AWS::S3::Bucket').find(([id]) => id.startsWith('MediaBucket'));
      if (!found) throw new Error('no media bucket');
      return found;
    };

    it('blocks public access and encrypts at rest', () => {
      const [, bucket] = mediaBucket(dev);
      expect(bucket.Properties!.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.Properties!.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
        { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
      ]);
      expect(bucket.Properties!.LoggingConfiguration).toMatchObject({ LogFilePrefix: 'media-bucket/' });
    });

    it('refuses requests without TLS', () => {
      const [id] = mediaBucket(dev);
      dev.statefulTemplate.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it('expires incoming/ after a day and aborts incomplete multipart uploads', () => {
      const [, bucket] = mediaBucket(dev);
      const rules = bucket.Properties!.LifecycleConfiguration.Rules as Array<Record<string, unknown>>;
      expect(rules).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ Prefix: 'incoming/', ExpirationInDays: 1, Status: 'Enabled' }),
          expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
        ]),
      );
    });

    it('lets the CDN read the public prefixes only, through its origin access control', () => {
      const [id] = mediaBucket(dev);
      const policy = resourcesOf(dev.statefulTemplate, 'AWS::S3::BucketPolicy').find(
        ([, p]) => p.Properties!.Bucket.Ref === id,
      )![1];
      const cdnStatements = (policy.Properties!.PolicyDocument.Statement as Array<Record<string, any>>).filter(
        (statement) => statement.Principal?.Service === 'cloudfront.amazonaws.com',
      );
      const reads = cdnStatements.find((statement) => statement.Action === 's3:GetObject')!;
      const prefixes = (reads.Resource as Array<{ 'Fn::Join': [string, unknown[]] }>).map((r) => r['Fn::Join'][1].at(-1));
      // Written out: provider-sim/ (job state with prompts) and incoming/ must never be public.
      expect(prefixes.sort()).toEqual(['/images/*', '/uploads/*', '/videos/*']);
      expect(prefixes).not.toContain('/incoming/*');
      expect(prefixes).not.toContain('/*');
      for (const statement of cdnStatements) {
        expect(statement.Condition.StringEquals['AWS:SourceArn']).toBeDefined();
      }
      dev.statefulTemplate.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: Match.objectLike({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' }),
      });
    });

    it('moves results and reference images to Intelligent-Tiering at once, and never expires them', () => {
      const [, bucket] = mediaBucket(dev);
      const rules = bucket.Properties!.LifecycleConfiguration.Rules as Array<Record<string, any>>;
      for (const prefix of ['videos/', 'images/', 'uploads/']) {
        const rule = rules.find((r) => r.Prefix === prefix);
        expect([prefix, rule]).toEqual([
          prefix,
          expect.objectContaining({ Status: 'Enabled', Transitions: [{ StorageClass: 'INTELLIGENT_TIERING', TransitionInDays: 0 }] }),
        ]);
        expect(rule!.ExpirationInDays).toBeUndefined();
      }
    });

    it('is retained in prod, and emptied and deleted with a dev stack', () => {
      expect(mediaBucket(prod)[1].DeletionPolicy).toBe('Retain');
      expect(mediaBucket(dev)[1].DeletionPolicy).toBe('Delete');
      prod.statefulTemplate.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
    });
  });

  describe('CDN', () => {
    it('serves each public prefix over HTTPS and answers everything else at the edge', () => {
      const [, distribution] = resourcesOf(dev.statefulTemplate, 'AWS::CloudFront::Distribution')[0]!;
      const config = distribution.Properties!.DistributionConfig;
      expect(config.CacheBehaviors.map((b: { PathPattern: string }) => b.PathPattern).sort()).toEqual(
        ['images/*', 'uploads/*', 'videos/*'],
      );
      for (const behavior of [config.DefaultCacheBehavior, ...config.CacheBehaviors]) {
        expect(behavior.ViewerProtocolPolicy).toBe('redirect-to-https');
        expect(behavior.AllowedMethods).toEqual(['GET', 'HEAD']);
      }
      expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
      expect(config.Origins[0].OriginAccessControlId).toBeDefined();
      expect(config.Logging).toBeDefined();
    });

    it('uses a custom domain and certificate from context', () => {
      const custom = synthesize({
        context: {
          cdnDomainName: 'media.example.com',
          cdnCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
        },
      });
      custom.statefulTemplate.hasResourceProperties('AWS::CloudFront::Distribution', {
        DistributionConfig: Match.objectLike({
          Aliases: ['media.example.com'],
          ViewerCertificate: Match.objectLike({ MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' }),
        }),
      });
      custom.statefulTemplate.hasOutput('CdnUrl', { Value: 'https://media.example.com' });
    });

    it('names its origin access control per stack and region (OAC names are unique per account)', () => {
      dev.statefulTemplate.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: Match.objectLike({
          Name: { 'Fn::Join': ['', ['VidGen-dev-Stateful-media-', { Ref: 'AWS::Region' }]] },
        }),
      });
    });

    describe('standard logs (CloudFront delivers none to buckets in opt-in regions)', () => {
      const loggingOf = (s: Synthesized) =>
        resourcesOf(s.statefulTemplate, 'AWS::CloudFront::Distribution')[0]![1].Properties!.DistributionConfig.Logging;
      const conditions = (s: Synthesized) => (s.statefulTemplate.toJSON().Conditions ?? {}) as Record<string, any>;

      it('are decided by the deploy region in an environment-agnostic synth: on in default regions, off in opt-in ones', () => {
        const logging = loggingOf(dev);
        const [conditionId, whenDeliverable, otherwise] = logging['Fn::If'];
        expect(whenDeliverable).toEqual({
          Bucket: { 'Fn::GetAtt': [expect.stringMatching(/^MediaAccessLogs/), 'RegionalDomainName'] },
          IncludeCookies: false,
          Prefix: 'cdn/',
        });
        expect(otherwise).toEqual({ Ref: 'AWS::NoValue' });
        const regions = JSON.stringify(conditions(dev)[conditionId]).match(/[a-z]{2}-[a-z]+-\d/g)!;
        expect(regions).toEqual(expect.arrayContaining(['us-east-1', 'eu-west-1', 'ap-southeast-2']));
        for (const optIn of ['af-south-1', 'ap-east-1', 'eu-south-1', 'me-south-1', 'il-central-1']) expect(regions).not.toContain(optIn);
      });

      it('are on for a default region and off for an opt-in region when the synth knows it, and off with -c cdnLogs=false', () => {
        const at = (region: string) => synthesize({ context: { region, account: '123456789012' } });
        expect(loggingOf(at('eu-west-1'))).toEqual({
          Bucket: { 'Fn::GetAtt': [expect.stringMatching(/^MediaAccessLogs/), 'RegionalDomainName'] },
          Prefix: 'cdn/',
        });
        const optIn = at('af-south-1');
        expect(loggingOf(optIn)).toBeUndefined();
        expect(conditions(optIn)).toEqual({});
        expect(loggingOf(synthesize({ context: { cdnLogs: 'false' } }))).toBeUndefined();
      });
    });

    it('outputs its URL (PUBLIC_MEDIA_BASE_URL)', () => {
      dev.statefulTemplate.hasOutput('CdnUrl', {
        Value: { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [Match.stringLikeRegexp('MediaCdn'), 'DomainName'] }]] },
      });
    });
  });

  describe('account holders (Cognito)', () => {
    it('a user pool with the email as username, self sign-up, verified emails, email recovery and the shared password policy', () => {
      dev.statefulTemplate.resourceCountIs('AWS::Cognito::UserPool', 1);
      dev.statefulTemplate.hasResourceProperties('AWS::Cognito::UserPool', {
        UsernameAttributes: ['email'],
        AutoVerifiedAttributes: ['email'],
        UsernameConfiguration: { CaseSensitive: false },
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
        AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
        Policies: {
          PasswordPolicy: { MinimumLength: 12, RequireLowercase: true, RequireUppercase: true, RequireNumbers: true, RequireSymbols: true, TemporaryPasswordValidityDays: 3 },
        },
        MfaConfiguration: 'OPTIONAL',
        UserPoolTier: 'ESSENTIALS',
      });
    });

    it('in production: the Plus plan with threat protection enforced, deletion protection, retained', () => {
      prod.statefulTemplate.hasResource('AWS::Cognito::UserPool', {
        DeletionPolicy: 'Retain',
        Properties: Match.objectLike({
          UserPoolTier: 'PLUS',
          DeletionProtection: 'ACTIVE',
          UserPoolAddOns: { AdvancedSecurityMode: 'ENFORCED' },
        }),
      });
    });

    it('one public app client: no secret, password and SRP sign-in, refresh, deliberate lifetimes, no user existence errors', () => {
      dev.statefulTemplate.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
      dev.statefulTemplate.hasResourceProperties('AWS::Cognito::UserPoolClient', {
        GenerateSecret: false,
        ExplicitAuthFlows: Match.arrayEquals(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']),
        AllowedOAuthFlowsUserPoolClient: false,
        PreventUserExistenceErrors: 'ENABLED',
        EnableTokenRevocation: true,
        AccessTokenValidity: 60,
        IdTokenValidity: 60,
        RefreshTokenValidity: 43200,
        TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'minutes' },
      });
    });

    it('outputs the pool, its client and the region, and hands the issuer and client to the stateless stack through SSM', () => {
      const outputs = dev.statefulTemplate.toJSON().Outputs as Record<string, unknown>;
      expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['UserPoolId', 'UserPoolClientId', 'IdentityRegion']));
      dev.statefulTemplate.hasResourceProperties('AWS::SSM::Parameter', { Name: '/vidgen/dev/identity-issuer' });
      dev.statefulTemplate.hasResourceProperties('AWS::SSM::Parameter', { Name: '/vidgen/dev/user-pool-client-id' });
    });
  });
});
