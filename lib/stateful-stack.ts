import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { AccountHolders } from './constructs/account-holders';
import { AppTable } from './constructs/app-table';
import { MediaStorage } from './constructs/media-storage';
import type { DeploySettings } from './deploy-settings';
import { publishSharedValues, type SharedValues } from './shared-parameters';

export interface StatefulStackProps extends StackProps {
  settings: DeploySettings;
}

/**
 * Data that must outlive any deploy: the DynamoDB table, the media bucket and the CDN that
 * serves it. In prod the table and buckets are RETAINed (and the table deletion-protected), so
 * `cdk destroy` of this stack leaves the data; compute lives in the stateless stack, which can
 * be torn down and redeployed freely.
 */
export class StatefulStack extends Stack {
  readonly table: TableV2;
  readonly media: MediaStorage;
  /** The account holders' Cognito user pool and the console's app client (users are data: they live here). */
  readonly holders: AccountHolders;
  /** The SES identity invitations are sent from (issue 36), on a stage with a sender. */
  readonly mailIdentity?: EmailIdentity;
  /** What the stateless stack needs, also written to SSM (lib/shared-parameters.ts). */
  readonly shared: SharedValues;
  /** Import expressions of the exports kept for stateless stacks deployed before SSM (see below). */
  readonly legacyExports: string[];

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.table = new AppTable(this, 'AppTable', { production: settings.production }).table;
    this.media = new MediaStorage(this, 'Media', {
      production: settings.production,
      ...(settings.cdn.domain && { cdnDomain: settings.cdn.domain }),
      ...(settings.cdn.webAclArn && { cdnWebAclArn: settings.cdn.webAclArn }),
      cdnLogs: settings.cdn.logs,
    });
    this.holders = new AccountHolders(this, 'AccountHolders', { production: settings.production });
    if (settings.mail) {
      // A domain gets Easy DKIM (publish the three CNAMEs SES lists); an address gets a verification mail.
      const { identity } = settings.mail;
      this.mailIdentity = new EmailIdentity(this, 'MailIdentity', { identity: identity.includes('@') ? Identity.email(identity) : Identity.domain(identity) });
      new CfnOutput(this, 'MailIdentityName', { value: identity, description: 'The SES identity invitations are sent from: verify it, and leave the SES sandbox (docs/operations.md)' });
    }
    this.shared = {
      tableName: this.table.tableName,
      mediaBucketName: this.media.bucket.bucketName,
      publicMediaBaseUrl: this.media.publicBaseUrl,
      identityIssuer: this.holders.userPool.userPoolProviderUrl,
      userPoolClientId: this.holders.client.userPoolClientId,
    };
    publishSharedValues(this, settings.stage, this.shared);

    // The exports stateless stacks deployed before the SSM parameters import (the names CDK
    // generated for its automatic cross-stack references). CloudFormation refuses to delete an
    // export that is still imported, so they stay, with the same names and values, until every
    // stage's stateless stack has been deployed once without imports; then they can go.
    this.legacyExports = [
      this.table.tableArn,
      this.table.tableName,
      this.media.bucket.bucketArn,
      this.media.bucket.bucketName,
      this.media.distribution.distributionDomainName,
    ].map((value) => this.exportValue(value));

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'TABLE_NAME for the admin CLI (npm run admin -- ... --aws)',
    });
    new CfnOutput(this, 'MediaBucketName', { value: this.media.bucket.bucketName });
    new CfnOutput(this, 'UserPoolId', {
      value: this.holders.userPool.userPoolId,
      description: 'USER_POOL_ID for the admin CLI (npm run admin -- user ... --aws) and the console',
    });
    new CfnOutput(this, 'UserPoolClientId', {
      value: this.holders.client.userPoolClientId,
      description: "USER_POOL_CLIENT_ID: the console's app client, whose access tokens the API accepts",
    });
    new CfnOutput(this, 'IdentityRegion', { value: this.region, description: 'The region of the user pool (Cognito endpoint cognito-idp.<region>.amazonaws.com)' });
    new CfnOutput(this, 'CdnUrl', { value: this.media.publicBaseUrl, description: 'PUBLIC_MEDIA_BASE_URL' });
    // Always there, so the outputs are the same with and without a custom domain.
    new CfnOutput(this, 'CdnDnsTarget', {
      value: this.media.distribution.distributionDomainName,
      description: settings.cdn.domain
        ? `Point ${settings.cdn.domain.domainName} here (CNAME, or a Route 53 alias)`
        : 'The distribution domain (the target of cdnDomainName, once one is set)',
    });
  }
}
