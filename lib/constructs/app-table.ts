import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '#adapters/dynamodb/table-definition';

export interface AppTableProps {
  /** RETAIN and deletion protection in production; DESTROY elsewhere. */
  production: boolean;
}

/**
 * The application table, built from the same definition the local stack and the tests use
 * (functions/adapters/dynamodb/table-definition.ts), so the deployed keys and indexes cannot drift.
 */
export class AppTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: AppTableProps) {
    super(scope, id);
    const { partitionKey, sortKey, gsi1, gsi2, lsi1, timeToLiveAttribute } = TABLE_DEFINITION;
    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.production,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      localSecondaryIndexes: [
        { indexName: lsi1.indexName, sortKey: { name: lsi1.sortKey, type: AttributeType.STRING } },
      ],
      globalSecondaryIndexes: [
        {
          indexName: gsi1.indexName,
          partitionKey: { name: gsi1.partitionKey, type: AttributeType.STRING },
          sortKey: { name: gsi1.sortKey, type: AttributeType.STRING },
        },
        {
          indexName: gsi2.indexName,
          partitionKey: { name: gsi2.partitionKey, type: AttributeType.STRING },
          sortKey: { name: gsi2.sortKey, type: AttributeType.STRING },
          projectionType: ProjectionType[gsi2.projection],
        },
      ],
    });
  }
}
