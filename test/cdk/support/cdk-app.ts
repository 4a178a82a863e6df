import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Route } from '#http/routes/index';
import { flattenNested, nestedStacksOf } from '#bin/invoke/nested-templates';
import { buildApp, type VidGenApp } from '#lib/app';
import { readDeploySettings } from '#lib/deploy-settings';

export { flattenNested, nestedStacksOf };

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Cloud assemblies written by this test file, removed when it is done. */
const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The context `npx cdk` gets from cdk.json (stage defaults and feature flags). */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

export interface SynthOptions {
  /** Extra context, as `-c key=value` would give it. */
  context?: Record<string, unknown>;
  /** Run esbuild (slow); off, functions get placeholder code and tests stay fast. */
  bundle?: boolean;
  routes?: readonly Route[];
  outdir?: string;
  /**
   * aws-cdk-lib's built-in CloudFormation validation (about 5 s per synthesis, and it only ever
   * warns); `npm run synth` runs it. Off in tests unless asked for.
   */
  cfnValidation?: boolean;
  /** Changes to make after the app is built, before it is synthesized. */
  beforeSynth?: (built: Synthesized) => void;
}

export interface Synthesized extends VidGenApp {
  app: App;
  outdir: string;
  stateful: VidGenApp['stateful'];
  stateless: VidGenApp['stateless'];
  statefulTemplate: Template;
  /**
   * The stateless stack with its nested area stacks folded in (`flattenNested`): what the tests
   * of functions, grants, environments and alarms read, wherever a resource lives.
   */
  statelessTemplate: Template;
  /** Each template as CloudFormation gets it: the root's and each area's, by stack. */
  statelessTemplates: { root: Template; nested: ReadonlyMap<string, Template> };
}

/** Builds the app as bin/cdk.ts does (cdk.json context + overrides) and synthesizes it once. */
export function synthesize(options: SynthOptions = {}): Synthesized {
  const outdir = options.outdir ?? mkdtempSync(path.join(os.tmpdir(), 'vidgen-cdk-'));
  if (!options.outdir) outdirs.push(outdir);
  const context = {
    ...cdkJsonContext(),
    ...options.context,
    ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
  };
  const app = new App({ context, outdir, builtinCloudFormationValidation: options.cfnValidation ?? false });
  const settings = readDeploySettings((key) => app.node.tryGetContext(key), {});
  const built = buildApp(app, settings, options.routes ? { routes: options.routes } : {});
  const result = { ...built, app, outdir } as Synthesized;
  options.beforeSynth?.(result);
  result.statefulTemplate = Template.fromStack(built.stateful);
  const root = Template.fromStack(built.stateless);
  const nested = new Map(nestedStacksOf(built.stateless).map((stack) => [stack.node.id, Template.fromStack(stack)]));
  result.statelessTemplates = { root, nested };
  result.statelessTemplate = flattenNested(built.stateless, root, nested);
  return result;
}

type Resource = { Type: string; Properties?: Record<string, any>; Metadata?: Record<string, unknown>; [key: string]: unknown };

export function resourcesOf(template: Template, type: string): Array<[string, Resource]> {
  return Object.entries(template.toJSON().Resources as Record<string, Resource>).filter(([, r]) => r.Type === type);
}

/** The logical id of the function that runs `handler` (vidgen:handler metadata). */
export function functionIdOf(template: Template, handler: string): string {
  const found = resourcesOf(template, 'AWS::Lambda::Function').find(([, r]) => r.Metadata?.['vidgen:handler'] === handler);
  if (!found) throw new Error(`No function for ${handler}`);
  return found[0];
}

/** Every (action, resource) pair a function's role is allowed, resources as JSON strings. */
export function grantsOf(template: Template, handler: string): Array<{ action: string; resource: string; condition?: unknown }> {
  const fnId = functionIdOf(template, handler);
  const roleRef = (template.toJSON().Resources[fnId] as Resource).Properties!.Role;
  const roleId = roleRef['Fn::GetAtt'][0] as string;
  const grants: Array<{ action: string; resource: string; condition?: unknown }> = [];
  for (const [, policy] of resourcesOf(template, 'AWS::IAM::Policy')) {
    const roles = (policy.Properties!.Roles as Array<{ Ref: string }>).map((role) => role.Ref);
    if (!roles.includes(roleId)) continue;
    for (const statement of policy.Properties!.PolicyDocument.Statement) {
      if (statement.Effect !== 'Allow') continue;
      const actions = ([] as string[]).concat(statement.Action);
      const resources = ([] as unknown[]).concat(statement.Resource);
      for (const action of actions) {
        for (const resource of resources) {
          grants.push({ action, resource: typeof resource === 'string' ? resource : JSON.stringify(resource), ...(statement.Condition && { condition: statement.Condition }) });
        }
      }
    }
  }
  return grants;
}
