import { Match } from 'aws-cdk-lib/assertions';
import { STREAMED_ROUTE_TIMEOUT_SECONDS } from '#http/route';
import { resourcesOf, synthesize, type Synthesized } from './support/cdk-app';

/**
 * The web console on AWS: a private bucket read through origin access control, a distribution
 * with the security headers and the single-page fallback, the API behind /api/v1/* of the same
 * origin, and config.json written at deploy time.
 */
let s: Synthesized;

beforeAll(() => {
  s = synthesize();
});

describe('ConsoleSite', () => {
  it('keeps the console bucket private, encrypted and TLS-only', () => {
    const template = s.statelessTemplate;
    const [, bucket] = resourcesOf(template, 'AWS::S3::Bucket').find(([id]) => id.startsWith('ConsoleBucket'))!;
    expect(bucket.Properties!.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties!.BucketEncryption).toBeDefined();
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'cloudfront.amazonaws.com' }, Action: 's3:GetObject', Condition: Match.objectLike({ StringEquals: Match.anyValue() }) }),
        ]),
      },
    });
  });

  it('sends CSP, HSTS, nosniff, no framing and a referrer policy on every answer', () => {
    const [, policy] = resourcesOf(s.statelessTemplate, 'AWS::CloudFront::ResponseHeadersPolicy')[0]!;
    const headers = policy.Properties!.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = JSON.stringify(headers.ContentSecurityPolicy.ContentSecurityPolicy);
    for (const directive of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", 'connect-src', 'cognito-idp.']) {
      expect([directive, csp.includes(directive)]).toEqual([directive, true]);
    }
    expect(csp).not.toContain('unsafe-inline');
    expect(headers.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 63072000, IncludeSubdomains: true, Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true });
  });

  it('serves the app with a single-page fallback and the API on the same origin, uncached', () => {
    const [, distribution] = resourcesOf(s.statelessTemplate, 'AWS::CloudFront::Distribution')[0]!;
    const config = distribution.Properties!.DistributionConfig;
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      expect.objectContaining({ EventType: 'viewer-request' }),
    ]);
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    const api = config.CacheBehaviors.find((behavior: any) => behavior.PathPattern === 'api/v1/*');
    expect(api).toMatchObject({ ViewerProtocolPolicy: 'https-only', CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad' });
    expect(api.AllowedMethods).toEqual(expect.arrayContaining(['POST', 'PATCH', 'DELETE']));
    const apiOrigin = config.Origins.find((origin: any) => origin.CustomOriginConfig);
    expect(apiOrigin.OriginPath).toBe('/dev');
    expect(JSON.stringify(apiOrigin.DomainName)).toContain('execute-api');
    // A streamed route (MCP's wait) may be quiet until its end: the origin may take as long as it runs.
    expect(apiOrigin.CustomOriginConfig.OriginReadTimeout).toBe(STREAMED_ROUTE_TIMEOUT_SECONDS);

    const [, fn] = resourcesOf(s.statelessTemplate, 'AWS::CloudFront::Function')[0]!;
    expect(fn.Properties!.FunctionCode).toContain("'/console/index.html'");
  });

  it('deploys the build and a config.json naming the stage\'s API and identity endpoint', () => {
    const [, deployment] = resourcesOf(s.statelessTemplate, 'Custom::CDKBucketDeployment')[0]!;
    expect(deployment.Properties!.DestinationBucketKeyPrefix).toBe('console/');
    expect(deployment.Properties!.SourceObjectKeys).toHaveLength(2);
    // config.json's deploy-time values: the API's id and stage, and the region (of the identity endpoint).
    const markers = JSON.stringify(deployment.Properties!.SourceMarkers);
    expect(markers).toMatch(/"Ref":"Api[0-9A-F]{8}"/);
    expect(markers).toContain('"Ref":"AWS::Region"');
    expect(deployment.Properties!.DistributionPaths).toEqual(['/console/*']);
    s.statelessTemplate.hasOutput('ConsoleUrl', {});
  });
});
