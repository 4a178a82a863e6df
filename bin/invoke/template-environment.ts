import type { Template } from 'aws-cdk-lib/assertions';
import { HANDLER_METADATA_KEY } from './assembly';

/**
 * Each function's environment as CloudFormation would hand it to Lambda, with the deploy-time
 * values (queue URLs, function names, secret ARNs, the SSM parameters) replaced by placeholders
 * of the same shape: a queue's URL is a URL, a secret's ARN an ARN. bin/invoke/local-env.ts drops
 * those variables and points the function at the local stack instead; this keeps every one, as
 * on AWS, for what a function builds (test/cdk/lambda-wiring.test.ts) and loads (bench:cold)
 * from exactly its own environment.
 */
const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';

const PSEUDO_PARAMETERS: Readonly<Record<string, string>> = {
  'AWS::Region': REGION,
  'AWS::AccountId': ACCOUNT,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
};

/** The stateful stack's values, read from SSM at deploy time (lib/shared-parameters.ts), by template parameter. */
const SHARED_PARAMETERS: Readonly<Record<string, string>> = {
  TableNameParameter: 'vidgen-placeholder-table',
  MediaBucketNameParameter: 'vidgen-placeholder-media',
  PublicMediaBaseUrlParameter: 'https://d111111abcdef8.cloudfront.net',
  IdentityIssuerParameter: `https://cognito-idp.${REGION}.amazonaws.com/${REGION}_Placeholder`,
  UserPoolClientIdParameter: 'placeholderclientid0000000',
};

/** What `Ref` gives for each resource type a function's environment refers to (CloudFormation's return values). */
const REF_OF: Readonly<Record<string, (logicalId: string) => string>> = {
  'AWS::SQS::Queue': (id) => `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${id}`,
  'AWS::Lambda::Function': (id) => `placeholder-${id}`,
  'AWS::ApiGateway::RestApi': () => 'a1b2c3d4e5',
  'AWS::SecretsManager::Secret': (id) => `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${id}-AbCdEf`,
};

type Resources = Record<string, { Type: string; Metadata?: Record<string, unknown>; Properties?: { Environment?: { Variables?: Record<string, unknown> } } }>;

export function resolvePlaceholders(value: unknown, template: { Resources: Resources; Parameters?: Record<string, unknown> }): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as Record<string, unknown>;
  if ('Ref' in intrinsic) {
    const name = intrinsic.Ref as string;
    if (name in PSEUDO_PARAMETERS) return PSEUDO_PARAMETERS[name]!;
    if (template.Parameters && name in template.Parameters) {
      const shared = SHARED_PARAMETERS[name];
      if (shared === undefined) throw new Error(`No placeholder for the template parameter ${name}: add one to SHARED_PARAMETERS.`);
      return shared;
    }
    const type = template.Resources[name]?.Type;
    const ref = type && REF_OF[type];
    if (!ref) throw new Error(`No placeholder for a Ref to ${name} (${type ?? 'unknown'}): add its type to REF_OF.`);
    return ref(name);
  }
  if ('Fn::Join' in intrinsic) {
    const [separator, parts] = intrinsic['Fn::Join'] as [string, unknown[]];
    return parts.map((part) => resolvePlaceholders(part, template)).join(separator);
  }
  throw new Error(`No placeholder for ${JSON.stringify(value)}.`);
}

/** Every function's environment by handler (the `vidgen:handler` metadata), placeholders in place of deploy-time values. */
export function templateEnvironments(template: Template): Record<string, Record<string, string>> {
  const json = template.toJSON() as { Resources: Resources; Parameters?: Record<string, unknown> };
  const environments: Record<string, Record<string, string>> = {};
  for (const resource of Object.values(json.Resources)) {
    const handler = resource.Metadata?.[HANDLER_METADATA_KEY];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof handler !== 'string') continue;
    const variables = (resource.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
    environments[handler] = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, resolvePlaceholders(value, json)]));
  }
  return environments;
}

/** What the Lambda runtime adds to a function's environment that its code reads. */
export const lambdaRuntimeEnvironment = (handler: string): Record<string, string> => ({
  AWS_REGION: REGION,
  AWS_LAMBDA_FUNCTION_NAME: `vidgen-placeholder-${handler}`,
});
