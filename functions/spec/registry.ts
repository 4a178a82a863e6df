import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isHttpSpec, type FunctionSpec } from './function-spec';

/**
 * Every function's spec, read from functions/handlers/*.spec.ts (one file per function, so
 * branches that add functions do not meet in one table). For Node-side code only (the CDK app,
 * the local stack, the OpenAPI document, tests): a function's bundle carries its own spec, never
 * this list (the dependency rules keep it out).
 */
export const HANDLERS_DIR = path.resolve(__dirname, '..', 'handlers');
const SPEC_SUFFIX = '.spec.ts';

let loaded: readonly FunctionSpec[] | undefined;

/** The specs, by name, checked (`validateSpecs`); read once per process. */
export function loadSpecs(): readonly FunctionSpec[] {
  loaded ??= validateSpecs(readSpecs(HANDLERS_DIR));
  return loaded;
}

/** The spec of one function; throws for a name without one. */
export function specOf(name: string): FunctionSpec {
  const found = loadSpecs().find((spec) => spec.name === name);
  if (!found) throw new Error(`No spec for ${name}: functions/handlers/${name}${SPEC_SUFFIX} does not exist.`);
  return found;
}

/** Each `<name>.spec.ts` of `dir`, with the file name it came from. */
export function readSpecs(dir: string): Array<{ file: string; spec: FunctionSpec }> {
  return readdirSync(dir)
    .filter((file) => file.endsWith(SPEC_SUFFIX))
    .sort()
    .map((file) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { spec } = require(path.join(dir, file)) as { spec?: FunctionSpec };
      if (!spec) throw new Error(`functions/handlers/${file} exports no \`spec\`.`);
      return { file, spec };
    });
}

/** The first segment of an HTTP path ("/videos/{video_id}" -> "videos"): each belongs to one area. */
const resourceOf = (routePath: string) => routePath.split('/')[1] ?? '';

/** What a set of specs must hold together; throws naming every spec that does not. */
export function validateSpecs(entries: ReadonlyArray<{ file: string; spec: FunctionSpec }>): readonly FunctionSpec[] {
  const problems: string[] = [];
  const specs = entries.map(({ spec }) => spec);
  for (const { file, spec } of entries) {
    if (`${spec.name}${SPEC_SUFFIX}` !== file) problems.push(`${file} declares "${spec.name}": a spec is named after its handler's file.`);
    const http = isHttpSpec(spec);
    const callers = spec.access.callers as readonly string[];
    if (callers.length === 0) problems.push(`${spec.name} names no callers.`);
    if (http === callers.includes('aws')) {
      problems.push(`${spec.name}: ${http ? "an HTTP route's callers are API keys, sessions or 'public'" : "a function behind no route is called by 'aws' alone"}.`);
    }
    if ((callers.includes('public') || callers.includes('aws')) && (callers.length > 1 || 'capability' in spec.access)) {
      problems.push(`${spec.name}: '${callers[0]}' stands alone and names no capability.`);
    }
    for (const target of spec.needs.invokes ?? []) {
      const invoked = specs.find((other) => other.name === target);
      if (!invoked || invoked.trigger.kind !== 'async') problems.push(`${spec.name} invokes "${target}", which is not a function invoked asynchronously.`);
    }
  }
  const http = specs.filter(isHttpSpec);
  const routes = new Map<string, string>();
  const areas = new Map<string, string>();
  for (const spec of http) {
    for (const method of [spec.trigger.method, ...(spec.trigger.refusedMethods ?? [])]) {
      const key = `${method} ${spec.trigger.path}`;
      const other = routes.get(key);
      if (other) problems.push(`${key} is declared by ${other} and ${spec.name}.`);
      routes.set(key, spec.name);
    }
    const resource = resourceOf(spec.trigger.path);
    const area = areas.get(resource);
    if (area && area !== spec.area) problems.push(`${spec.name}: /${resource} belongs to the ${area} area, not ${spec.area} (one nested stack per resource).`);
    areas.set(resource, area ?? spec.area);
  }
  if (problems.length > 0) throw new Error(`Function specs:\n- ${problems.join('\n- ')}`);
  return specs;
}
