import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds a synthesized function's bundle in a cloud assembly (cdk.out): the stack templates
 * listed in manifest.json and their nested stacks' (the functions live in one per area:
 * lib/stacks/function-area.ts; each is a file asset of its root stack), the function whose
 * `vidgen:handler` metadata names the handler, and its asset directory (the `aws:asset:path`
 * metadata, or the asset manifest entry of its S3 key when asset metadata is off).
 */
export const HANDLER_METADATA_KEY = 'vidgen:handler';

export interface BundledFunction {
  handler: string;
  stack: string;
  logicalId: string;
  /** Absolute path of the asset directory (what Lambda unzips into /var/task). */
  assetDir: string;
  /** The file and export the Lambda `Handler` property names ("index.handler"). */
  file: string;
  exportName: string;
  /** The function's environment variables that are plain strings in the template. */
  literalEnvironment: Record<string, string>;
  /** Its timeout in seconds (the template's `Timeout`; Lambda's default, 3 s, when it has none). */
  timeoutSeconds: number;
}

interface Manifest {
  artifacts?: Record<string, { type: string; properties?: { templateFile?: string } }>;
}

interface TemplateResource {
  Type: string;
  Metadata?: Record<string, unknown>;
  Properties?: {
    Handler?: string;
    Timeout?: unknown;
    Code?: { S3Key?: unknown };
    Environment?: { Variables?: Record<string, unknown> };
  };
}

export class AssemblyError extends Error {}

const LAMBDA_DEFAULT_TIMEOUT_SECONDS = 3;

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export function listBundledFunctions(cdkOut: string): BundledFunction[] {
  const manifestFile = path.join(cdkOut, 'manifest.json');
  if (!existsSync(manifestFile)) {
    throw new AssemblyError(`No cloud assembly at ${cdkOut}: run \`npm run synth\` first.`);
  }
  const manifest = readJson<Manifest>(manifestFile);
  const found: BundledFunction[] = [];
  for (const [stack, artifact] of Object.entries(manifest.artifacts ?? {})) {
    if (artifact.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile) continue;
    for (const templateFile of [artifact.properties.templateFile, ...nestedTemplatesOf(cdkOut, stack)]) {
      const template = readJson<{ Resources?: Record<string, TemplateResource> }>(path.join(cdkOut, templateFile));
      for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
        const handler = resource.Metadata?.[HANDLER_METADATA_KEY];
        if (resource.Type !== 'AWS::Lambda::Function' || typeof handler !== 'string') continue;
        const [file, exportName] = splitHandler(resource.Properties?.Handler ?? 'index.handler');
        found.push({
          handler,
          stack,
          logicalId,
          assetDir: assetDirOf(cdkOut, stack, resource),
          file,
          exportName,
          literalEnvironment: Object.fromEntries(
            Object.entries(resource.Properties?.Environment?.Variables ?? {}).filter(
              (entry): entry is [string, string] => typeof entry[1] === 'string',
            ),
          ),
          timeoutSeconds: typeof resource.Properties?.Timeout === 'number' ? resource.Properties.Timeout : LAMBDA_DEFAULT_TIMEOUT_SECONDS,
        });
      }
    }
  }
  return found;
}

/** The nested stacks' templates of a stack: file assets in its asset manifest. */
function nestedTemplatesOf(cdkOut: string, stack: string): string[] {
  const assetsFile = path.join(cdkOut, `${stack}.assets.json`);
  if (!existsSync(assetsFile)) return [];
  const assets = readJson<{ files?: Record<string, { source?: { path?: string } }> }>(assetsFile);
  return Object.values(assets.files ?? {})
    .map((asset) => asset.source?.path)
    .filter((file): file is string => typeof file === 'string' && file.endsWith('.nested.template.json'))
    .sort();
}

/** `name` is a handler name (get-credits) or a logical id (GetCreditsFunction1234ABCD). */
export function findBundledFunction(cdkOut: string, name: string): BundledFunction {
  const all = listBundledFunctions(cdkOut);
  const match = all.filter((fn) => fn.handler === name || fn.logicalId === name);
  if (match.length === 0) {
    const known = [...new Set(all.map((fn) => fn.handler))].sort().join(', ');
    throw new AssemblyError(`No function "${name}" in ${cdkOut}. Known: ${known || 'none (run npm run synth)'}.`);
  }
  if (match.length > 1) {
    throw new AssemblyError(`"${name}" matches functions in several stacks (${match.map((fn) => fn.stack).join(', ')}).`);
  }
  const fn = match[0]!;
  if (!existsSync(path.join(fn.assetDir, fn.file))) {
    throw new AssemblyError(`The bundle of ${name} is missing (${fn.assetDir}): run \`npm run synth\` again.`);
  }
  return fn;
}

function splitHandler(handler: string): [string, string] {
  const dot = handler.lastIndexOf('.');
  return [`${handler.slice(0, dot)}.js`, handler.slice(dot + 1)];
}

function assetDirOf(cdkOut: string, stack: string, resource: TemplateResource): string {
  const assetPath = resource.Metadata?.['aws:asset:path'];
  if (typeof assetPath === 'string') return path.resolve(cdkOut, assetPath);
  // Asset metadata off (--no-asset-metadata): the S3 key is "<hash>.zip"; the asset manifest maps the hash to its folder.
  const key = resource.Properties?.Code?.S3Key;
  const hash = typeof key === 'string' ? key.replace(/\.zip$/, '') : undefined;
  const assetsFile = path.join(cdkOut, `${stack}.assets.json`);
  if (hash && existsSync(assetsFile)) {
    const assets = readJson<{ files?: Record<string, { source?: { path?: string } }> }>(assetsFile);
    const source = assets.files?.[hash]?.source?.path;
    if (source) return path.resolve(cdkOut, source);
  }
  throw new AssemblyError(`Cannot find the asset folder of a function in ${stack}.`);
}
