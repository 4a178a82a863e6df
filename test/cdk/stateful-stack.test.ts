import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { createTableInput } from '../../functions/data/table-definition';
import { StatefulStack } from '../../lib/stateful-stack';

const synth = (stage: string) =>
  Template.fromStack(new StatefulStack(new App(), `Test-${stage}`, { stage }));

describe('StatefulStack', () => {
  it('deploys the same keys and index the local stack creates', () => {
    const local = createTableInput('any');
    synth('dev').hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: local.KeySchema,
      AttributeDefinitions: Match.arrayEquals(local.AttributeDefinitions!),
      GlobalSecondaryIndexes: [
        Match.objectLike({
          IndexName: local.GlobalSecondaryIndexes![0]!.IndexName,
          KeySchema: local.GlobalSecondaryIndexes![0]!.KeySchema,
          Projection: { ProjectionType: 'ALL' },
        }),
      ],
      LocalSecondaryIndexes: [
        Match.objectLike({
          IndexName: local.LocalSecondaryIndexes![0]!.IndexName,
          KeySchema: local.LocalSecondaryIndexes![0]!.KeySchema,
          Projection: { ProjectionType: 'ALL' },
        }),
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
    });
  });

  it('retains and protects the table in production only', () => {
    const prod = synth('prod');
    prod.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
    prod.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
    synth('dev').hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
  });
});
