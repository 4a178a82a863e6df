import { CachePolicy } from 'aws-cdk-lib/aws-cloudfront';
import { OUTPUT_CACHE_CONTROL, OUTPUT_CACHE_SECONDS } from '#adapters/s3/media-layout';
import { resourcesOf, synthesize, type Synthesized } from './support/cdk-app';

/**
 * Old URLs of deleted results answer 404 through CloudFront within 5 minutes (CONTRACT.md,
 * "Retention and deletion"; docs/decisions.md, "Old URLs after a deletion"): videos/* and images/*
 * are cached at most 2 minutes at the edge and at most 2 more in a regional cache; uploads/* (never
 * deleted by a customer) keep the managed CachingOptimized policy.
 */
let built: Synthesized;
beforeAll(() => {
  built = synthesize();
});

type Behavior = { PathPattern: string; CachePolicyId: unknown };

function behaviors(): Map<string, Behavior> {
  const [, distribution] = resourcesOf(built.statefulTemplate, 'AWS::CloudFront::Distribution')[0]!;
  const config = distribution.Properties!.DistributionConfig as { CacheBehaviors: Behavior[] };
  return new Map(config.CacheBehaviors.map((behavior) => [behavior.PathPattern, behavior]));
}

describe('the CDN cache of results', () => {
  it('caches videos/* and images/* with one policy whose TTLs are at most 2 minutes', () => {
    const policies = resourcesOf(built.statefulTemplate, 'AWS::CloudFront::CachePolicy');
    expect(policies).toHaveLength(1);
    const [policyId, policy] = policies[0]!;
    const config = policy.Properties!.CachePolicyConfig;
    expect({ min: config.MinTTL, default: config.DefaultTTL, max: config.MaxTTL }).toEqual({ min: 0, default: OUTPUT_CACHE_SECONDS, max: OUTPUT_CACHE_SECONDS });
    expect(OUTPUT_CACHE_SECONDS).toBeLessThanOrEqual(120);
    // Nothing in the key but the path: one cached copy per object, compressed or not.
    const key = config.ParametersInCacheKeyAndForwardedToOrigin;
    expect(key).toMatchObject({
      EnableAcceptEncodingGzip: true,
      EnableAcceptEncodingBrotli: true,
      HeadersConfig: { HeaderBehavior: 'none' },
      CookiesConfig: { CookieBehavior: 'none' },
      QueryStringsConfig: { QueryStringBehavior: 'none' },
    });
    for (const prefix of ['videos/*', 'images/*']) expect([prefix, behaviors().get(prefix)!.CachePolicyId]).toEqual([prefix, { Ref: policyId }]);
  });

  it('leaves uploads/* on the managed CachingOptimized policy', () => {
    expect(behaviors().get('uploads/*')!.CachePolicyId).toBe(CachePolicy.CACHING_OPTIMIZED.cachePolicyId);
  });

  it('writes results with a max-age the policy honours', () => {
    expect(OUTPUT_CACHE_CONTROL).toBe(`public, max-age=${OUTPUT_CACHE_SECONDS}`);
  });
});
