import { Stack, type StackProps } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { AppTable } from './constructs/app-table';

export interface StatefulStackProps extends StackProps {
  stage: string;
}

/**
 * Data that must outlive any deploy: the DynamoDB table (and, with the infrastructure issue,
 * the media bucket and CDN). Compute lives in a separate stack that receives these as props.
 */
export class StatefulStack extends Stack {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    this.table = new AppTable(this, 'AppTable', { production: props.stage === 'prod' }).table;
  }
}
