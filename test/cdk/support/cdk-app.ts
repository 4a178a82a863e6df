import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App, type CfnElement, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Route } from '#http/routes/index';
import { buildApp, type VidGenApp } from '#lib/app';
import { readDeploySettings } from '#lib/deploy-settings';

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

/** The nested stacks directly inside `stack`. */
export const nestedStacksOf = (stack: Stack): NestedStack[] => stack.node.children.filter((child): child is NestedStack => child instanceof NestedStack);

type Json = unknown;

/**
 * One template with the nested stacks' resources in it, each nested parameter replaced by what
 * the root passes it and each nested output read by the root (or by another nested stack)
 * replaced by its value: as the template read before the functions moved into areas (issue 33).
 */
export function flattenNested(stack: Stack, root: Template, nested: ReadonlyMap<string, Template>): Template {
  const merged = structuredClone(root.toJSON()) as { Resources: Record<string, Record<string, any>>; Outputs?: Record<string, unknown> };
  const outputs = new Map<string, Json>();
  const substituted: Array<Record<string, Json>> = [];
  for (const child of nestedStacksOf(stack)) {
    const resourceId = stack.getLogicalId(child.nestedStackResource as CfnElement);
    const parameters = (merged.Resources[resourceId]?.Properties?.Parameters ?? {}) as Record<string, Json>;
    const template = nested.get(child.node.id)!.toJSON() as { Resources: Record<string, Json>; Outputs?: Record<string, { Value: Json }> };
    const replaceParameters = (value: Json): Json => mapJson(value, (node) => (isRef(node) && node.Ref in parameters ? parameters[node.Ref] : undefined));
    for (const [name, output] of Object.entries(template.Outputs ?? {})) outputs.set(`${resourceId}.${name}`, replaceParameters(output.Value));
    substituted.push(replaceParameters(template.Resources) as Record<string, Json>);
    delete merged.Resources[resourceId];
  }
  const replaceOutputs = (value: Json): Json =>
    mapJson(value, (node) => {
      const getAtt = (node as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
      if (!Array.isArray(getAtt) || !getAtt[1]?.startsWith('Outputs.')) return undefined;
      const key = `${getAtt[0]}.${getAtt[1].slice('Outputs.'.length)}`;
      return outputs.has(key) ? replaceOutputs(outputs.get(key)) : undefined;
    });
  for (const resources of substituted) {
    for (const [id, resource] of Object.entries(resources)) {
      if (id in merged.Resources) throw new Error(`Logical id ${id} is in two templates of ${stack.stackName}.`);
      merged.Resources[id] = resource as Record<string, any>;
    }
  }
  return Template.fromJSON(replaceOutputs(merged) as Record<string, unknown>);
}

const isRef = (node: Json): node is { Ref: string } =>
  typeof node === 'object' && node !== null && Object.keys(node).length === 1 && typeof (node as { Ref?: unknown }).Ref === 'string';

/** `value` with every node `replace` answers for replaced (and not walked further). */
function mapJson(value: Json, replace: (node: Json) => Json | undefined): Json {
  const replaced = replace(value);
  if (replaced !== undefined) return replaced;
  if (Array.isArray(value)) return value.map((item) => mapJson(item, replace));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapJson(item, replace)]));
  return value;
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
