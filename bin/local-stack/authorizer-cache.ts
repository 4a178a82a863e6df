import type { APIGatewayAuthorizerResult } from 'aws-lambda';

/**
 * API Gateway's authorizer result cache: an Allow answer is reused for `ttlSeconds` for the
 * same identity source (the Authorization header). A TTL of 0 turns caching off, as it does on
 * AWS. This is why a revoked key keeps working for up to one TTL.
 */
export class AuthorizerCache {
  private readonly entries = new Map<string, { result: APIGatewayAuthorizerResult; expiresAt: number }>();

  constructor(private readonly ttlSeconds: number) {}

  get(identity: string, now = Date.now()): APIGatewayAuthorizerResult | undefined {
    const entry = this.entries.get(identity);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(identity);
      return undefined;
    }
    return entry.result;
  }

  set(identity: string, result: APIGatewayAuthorizerResult, now = Date.now()): void {
    if (this.ttlSeconds <= 0) return;
    this.entries.set(identity, { result, expiresAt: now + this.ttlSeconds * 1000 });
  }
}

/** IAM-style check of the policy against one method ARN (`*` matches any run of characters). */
export function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(
      methodArn,
    );
  let allowed = false;
  for (const statement of result.policyDocument.Statement) {
    const resources = 'Resource' in statement ? [statement.Resource].flat() : [];
    if (!resources.some((resource) => matches(String(resource)))) continue;
    if (statement.Effect === 'Deny') return false;
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed;
}
