import { type CfnElement, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';

// The stateless stack's templates as one (issue 33 put its functions in nested stacks, one per
// area): what the CDK tests read grants and environments from, and what bench:cold reads each
// function's environment from (bin/invoke/template-environment.ts).

/** The nested stacks directly inside `stack`. */
export const nestedStacksOf = (stack: Stack): NestedStack[] => stack.node.children.filter((child): child is NestedStack => child instanceof NestedStack);

type Json = unknown;

/** `stack`'s template with its nested stacks' folded in (`flattenNested`). */
export const flattenedTemplate = (stack: Stack): Template =>
  flattenNested(stack, Template.fromStack(stack), new Map(nestedStacksOf(stack).map((nested) => [nested.node.id, Template.fromStack(nested)])));

/**
 * One template with the nested stacks' resources in it, each nested parameter replaced by what
 * the root passes it and each nested output read by the root (or by another nested stack)
 * replaced by its value: as the template read before the functions moved into areas (issue 33).
 */
export function flattenNested(stack: Stack, root: Template, nested: ReadonlyMap<string, Template>): Template {
  const merged = structuredClone(root.toJSON()) as { Resources: Record<string, { Properties?: { Parameters?: Record<string, Json> } }>; Outputs?: Record<string, unknown> };
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
      merged.Resources[id] = resource as (typeof merged.Resources)[string];
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
