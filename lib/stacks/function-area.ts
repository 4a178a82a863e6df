import { NestedStack } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { Area } from '#spec/function-spec';

/**
 * The functions of one area of the API (a spec's `area`), in a nested stack of their own: each
 * with its role, policy, log group, invoke config, event source mapping, alarms and one
 * permission for API Gateway, so the root stack keeps the API, the queues and what is shared,
 * and no template nears CloudFormation's 500 resources as functions are added (issue 33).
 */
export class FunctionArea extends NestedStack {
  readonly area: Area;

  constructor(scope: Construct, id: string, props: { area: Area; stage: string }) {
    super(scope, id, { description: `vidgen ${props.stage}: the ${props.area} functions, their roles, logs and alarms` });
    this.area = props.area;
  }
}

/** API Gateway, as the principal of the one permission each API-facing function gives. */
export const API_GATEWAY = new ServicePrincipal('apigateway.amazonaws.com');
