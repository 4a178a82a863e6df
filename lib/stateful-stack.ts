import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITableV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { AppTable } from './constructs/app-table';
import { MediaStorage } from './constructs/media-storage';
import type { DeploySettings } from './deploy-settings';

export interface StatefulStackProps extends StackProps {
  settings: DeploySettings;
}

/** What the stateless stack receives from this one (typed props, no lookups by name). */
export interface StatefulResources {
  table: ITableV2;
  mediaBucket: IBucket;
  /** The CDN's https base URL, without a trailing slash. */
  publicMediaBaseUrl: string;
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
  readonly resources: StatefulResources;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.table = new AppTable(this, 'AppTable', { production: settings.production }).table;
    this.media = new MediaStorage(this, 'Media', {
      production: settings.production,
      ...(settings.cdn.domain && { cdnDomain: settings.cdn.domain }),
      ...(settings.cdn.webAclArn && { cdnWebAclArn: settings.cdn.webAclArn }),
    });
    this.resources = {
      table: this.table,
      mediaBucket: this.media.bucket,
      publicMediaBaseUrl: this.media.publicBaseUrl,
    };

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'TABLE_NAME for the admin CLI (npm run admin -- ... --aws)',
    });
    new CfnOutput(this, 'MediaBucketName', { value: this.media.bucket.bucketName });
    new CfnOutput(this, 'CdnUrl', { value: this.media.publicBaseUrl, description: 'PUBLIC_MEDIA_BASE_URL' });
    if (settings.cdn.domain) {
      new CfnOutput(this, 'CdnDnsTarget', {
        value: this.media.distribution.distributionDomainName,
        description: `Point ${settings.cdn.domain.domainName} here (CNAME, or a Route 53 alias)`,
      });
    }
  }
}
