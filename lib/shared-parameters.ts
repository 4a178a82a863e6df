import { CfnParameter, Stack } from 'aws-cdk-lib';
import { TableV2, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';

/**
 * How the stateless stack learns the stateful stack's values: SSM parameters, not
 * CloudFormation exports. An export that another stack imports can neither change its value
 * nor disappear, so a change like adding `-c cdnDomainName` (the CDN URL becomes the custom
 * name, the distribution's domain is no longer needed) made `cdk deploy --all` fail with
 * "export ... in use". A parameter can change: the stateless stack reads it as an
 * `AWS::SSM::Parameter::Value<String>` template parameter, which CloudFormation resolves on
 * every deploy (and the CDK CLI never skips deploying a stack that has one), so the next
 * `cdk deploy --all` hands the new value to the functions. docs/operations.md has the trade-off.
 */
export interface SharedValues {
  tableName: string;
  mediaBucketName: string;
  /** The CDN's https base URL, without a trailing slash (PUBLIC_MEDIA_BASE_URL). */
  publicMediaBaseUrl: string;
  /** The user pool's issuer, https://cognito-idp.<region>.amazonaws.com/<pool id> (IDENTITY_ISSUER). */
  identityIssuer: string;
  /** The console's app client (IDENTITY_CLIENT_ID). */
  userPoolClientId: string;
}

type SharedKey = keyof SharedValues;

const PARAMETERS: Readonly<Record<SharedKey, { id: string; suffix: string; description: string }>> = {
  tableName: { id: 'TableName', suffix: 'table-name', description: 'Name of the DynamoDB table (TABLE_NAME)' },
  mediaBucketName: { id: 'MediaBucketName', suffix: 'media-bucket-name', description: 'Name of the media bucket (MEDIA_BUCKET)' },
  publicMediaBaseUrl: {
    id: 'PublicMediaBaseUrl',
    suffix: 'public-media-base-url',
    description: 'https base URL of the media CDN (PUBLIC_MEDIA_BASE_URL)',
  },
  identityIssuer: { id: 'IdentityIssuer', suffix: 'identity-issuer', description: "Issuer of the account holders' user pool (IDENTITY_ISSUER)" },
  userPoolClientId: { id: 'UserPoolClientId', suffix: 'user-pool-client-id', description: "The console's user pool app client (IDENTITY_CLIENT_ID)" },
};

/** `/vidgen/<stage>/<name>`: one set per stage, region and account (SSM parameters are regional). */
export const sharedParameterName = (stage: string, key: SharedKey): string => `/vidgen/${stage}/${PARAMETERS[key].suffix}`;

/** The stateful stack writes its values (construct ids `<Id>Parameter`). */
export function publishSharedValues(scope: Construct, stage: string, values: SharedValues): StringParameter[] {
  return (Object.keys(PARAMETERS) as SharedKey[]).map(
    (key) =>
      new StringParameter(scope, `${PARAMETERS[key].id}Parameter`, {
        parameterName: sharedParameterName(stage, key),
        stringValue: values[key],
        description: `vidgen ${stage}: ${PARAMETERS[key].description}; read by the stateless stack at deploy time`,
      }),
  );
}

/** What the stateless stack works with: the values as deploy-time tokens, and references built from them. */
export interface SharedResources extends SharedValues {
  table: ITableV2;
  mediaBucket: IBucket;
}

/** The stateless stack reads them: template parameters resolved from SSM at each deploy, no Fn::ImportValue. */
export function readSharedValues(scope: Construct, stage: string): SharedResources {
  const read = (key: SharedKey) =>
    new CfnParameter(Stack.of(scope), `${PARAMETERS[key].id}Parameter`, {
      type: 'AWS::SSM::Parameter::Value<String>',
      default: sharedParameterName(stage, key),
      description: `SSM parameter with the ${PARAMETERS[key].description}, written by the stateful stack`,
    }).valueAsString;
  const values: SharedValues = {
    tableName: read('tableName'),
    mediaBucketName: read('mediaBucketName'),
    publicMediaBaseUrl: read('publicMediaBaseUrl'),
    identityIssuer: read('identityIssuer'),
    userPoolClientId: read('userPoolClientId'),
  };
  return {
    ...values,
    table: TableV2.fromTableName(scope, 'Table', values.tableName),
    mediaBucket: Bucket.fromBucketName(scope, 'MediaBucket', values.mediaBucketName),
  };
}
