import {
  Stack,
  Validations,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
} from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
// The same flattening cdk-nag uses to name IAM5 findings, so our acknowledgments match them.
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag's AwsSolutions pack, run as a CDK validation plugin (cdk-nag 3:
 * `Validations.of(app).addPlugins(...)`), plus the acknowledgments that can only be named
 * after synthesis.
 *
 * Why deferred: cdk-nag names an IAM5 finding after the flattened resource, and a grant on
 * `videos/*` of the media bucket only has its final form (`arn:…:s3:::<MediaBucketNameParameter>/videos/*`,
 * the bucket named by an SSM-backed template parameter; an `Fn::ImportValue` when it was a
 * cross-stack reference) once the template is resolved, after constructs are built. So grants
 * register their reason here (`acknowledgeWildcardResource`) and the acknowledgment is written
 * just before the checks run, from the final template values.
 */
interface PendingAcknowledgment {
  scope: IConstruct;
  ruleId: string;
  /** A token (or plain string) whose resolved, flattened form is the finding's resource. */
  resource: string;
  reason: string;
}

const pending = new WeakMap<IConstruct, PendingAcknowledgment[]>();

/** Acknowledge AwsSolutions-IAM5 for `resource` on `scope`, with the reason, once resolvable. */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  const root = scope.node.root;
  const list = pending.get(root) ?? [];
  list.push({ scope, ruleId: 'AwsSolutions-IAM5', resource, reason });
  pending.set(root, list);
}

/** The IAM5 finding id cdk-nag reports for a resource, resolved in the scope's stack. */
export function wildcardFindingId(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

function applyPending(root: IConstruct): void {
  for (const item of pending.get(root) ?? []) {
    Validations.of(item.scope).acknowledge({ id: wildcardFindingId(item.scope, item.resource), reason: item.reason });
  }
  pending.delete(root);
}

export class VidGenNagChecks implements IPolicyValidationPlugin {
  readonly name = 'cdk-nag AwsSolutions';
  readonly version: string;
  private readonly checks: AwsSolutionsChecks;
  /** The last report, for tests and for printing. */
  lastReport?: PolicyValidationPluginReport;

  constructor(scope: IConstruct) {
    this.checks = new AwsSolutionsChecks(scope);
    this.version = this.checks.version ?? '0.0.0';
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    applyPending(context.appConstruct);
    this.lastReport = this.checks.validate(context);
    return this.lastReport;
  }
}

/** Registers the checks on the app; synthesis fails on any unacknowledged finding. */
export function addNagChecks(app: IConstruct): VidGenNagChecks {
  const plugin = new VidGenNagChecks(app);
  Validations.of(app).addPlugins(plugin);
  return plugin;
}
