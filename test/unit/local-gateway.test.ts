import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { AuthorizerCache, policyAllows } from '../../bin/local-stack/authorizer-cache';
import { createRouter } from '../../bin/local-stack/router';
import { wholeApiArn } from '../../functions/handlers/authorizer';

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/credits';
const OTHER_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/POST/api/v1/generate';

const policy = (resource: string, effect: 'Allow' | 'Deny' = 'Allow'): APIGatewayAuthorizerResult => ({
  principalId: 'acc_1',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }] },
});

describe('authorizer policy', () => {
  it('covers every route of the stage, so a cached answer is valid everywhere', () => {
    const resource = wholeApiArn(METHOD_ARN);
    expect(resource).toBe('arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/*');
    expect(policyAllows(policy(resource), METHOD_ARN)).toBe(true);
    expect(policyAllows(policy(resource), OTHER_ARN)).toBe(true);
    expect(policyAllows(policy(resource), OTHER_ARN.replace('/prod/', '/dev/'))).toBe(false);
  });

  it('would deny other routes had it named only the calling method', () => {
    expect(policyAllows(policy(METHOD_ARN), OTHER_ARN)).toBe(false);
  });

  it('lets an explicit Deny win', () => {
    expect(policyAllows(policy(wholeApiArn(METHOD_ARN), 'Deny'), METHOD_ARN)).toBe(false);
  });
});

describe('AuthorizerCache', () => {
  it('keeps an answer for the TTL only', () => {
    const cache = new AuthorizerCache(60);
    const answer = policy('*');
    cache.set('Bearer a', answer, 1_000);
    expect(cache.get('Bearer a', 60_999)).toBe(answer);
    expect(cache.get('Bearer a', 61_000)).toBeUndefined();
    expect(cache.get('Bearer b', 1_000)).toBeUndefined();
  });

  it('caches nothing with a TTL of 0, as API Gateway does', () => {
    const cache = new AuthorizerCache(0);
    cache.set('Bearer a', policy('*'), 1_000);
    expect(cache.get('Bearer a', 1_000)).toBeUndefined();
  });
});

describe('local router', () => {
  const match = createRouter([
    { method: 'GET', path: '/api/v1/videos', handler: 'list' },
    { method: 'GET', path: '/api/v1/videos/{video_id}', handler: 'get' },
  ]);

  it('matches exact paths and extracts path parameters', () => {
    expect(match('GET', '/api/v1/videos')).toEqual({ route: expect.objectContaining({ handler: 'list' }), pathParameters: null });
    expect(match('GET', '/api/v1/videos/vid_1')?.pathParameters).toEqual({ video_id: 'vid_1' });
  });

  it('refuses other methods, longer paths and trailing segments', () => {
    expect(match('POST', '/api/v1/videos')).toBeUndefined();
    expect(match('GET', '/api/v1/videos/a/b')).toBeUndefined();
    expect(match('GET', '/api/v1/videosX')).toBeUndefined();
  });
});
