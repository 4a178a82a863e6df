import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadProviderSetup } from '#config/providers';
import { ConfigError, readSetting } from '#config/setting';
import { falSettings } from '#providers/fal/settings';
import { replicateSettings } from '#providers/replicate/settings';

/**
 * A model map too long for Lambda's 4 KB environment ships beside the bundle
 * (`delivery: 'bundle'`, issue 33): the reader takes the variable first (local use, tests), then
 * the file the deploy copied next to index.js, then the shipped default.
 */
const { modelsJson } = replicateSettings.settings;
const FROM_FILE = '{"vid-1-5-pro":{"model":"owner/from-file"}}';
const FROM_VARIABLE = '{"vid-1-5-pro":{"model":"owner/from-variable"}}';

let bundleDir: string;
beforeEach(() => {
  bundleDir = mkdtempSync(path.join(os.tmpdir(), 'vidgen-bundle-'));
});
afterEach(() => rmSync(bundleDir, { recursive: true, force: true }));

const ship = (name: string, text: string) => writeFileSync(path.join(bundleDir, name), text);

describe('a setting shipped beside the bundle', () => {
  it('is read from the variable first, then from <VARIABLE>.json beside the bundle, then its default (none: the shipped default-models.json)', () => {
    expect(readSetting(modelsJson, {}, bundleDir)).toBeUndefined();
    ship('REPLICATE_MODELS.json', FROM_FILE);
    expect(readSetting(modelsJson, {}, bundleDir)).toBe(FROM_FILE);
    expect(readSetting(modelsJson, { REPLICATE_MODELS: FROM_VARIABLE }, bundleDir)).toBe(FROM_VARIABLE);
    // An empty variable is unset, as everywhere: the file.
    expect(readSetting(modelsJson, { REPLICATE_MODELS: ' ' }, bundleDir)).toBe(FROM_FILE);
  });

  it("reaches the provider's configuration (each provider its own file), where the functions read it", () => {
    ship('REPLICATE_MODELS.json', FROM_FILE);
    ship('FAL_MODELS.json', '{"vid-1-5-pro":{"endpoint":"fal-ai/x","input":{}}}');
    const setup = loadProviderSetup({ PROVIDER: 'replicate', REPLICATE_API_TOKEN: 'r8_x', FAL_KEY: 'fal_x' }, bundleDir);
    expect(setup.provider).toMatchObject({ name: 'replicate', modelsJson: FROM_FILE });
    expect(setup.otherProviders?.find((one) => one.name === 'fal')).toMatchObject({ modelsJson: '{"vid-1-5-pro":{"endpoint":"fal-ai/x","input":{}}}' });
    expect(falSettings.settings.modelsJson.delivery).toBe('bundle');
  });

  it('refuses a file that is not JSON, naming the file and not quoting it', () => {
    ship('REPLICATE_MODELS.json', '{"vid-1-5-pro": not json');
    expect(() => readSetting(modelsJson, {}, bundleDir)).toThrow(
      new ConfigError('REPLICATE_MODELS.json (beside the bundle, for REPLICATE_MODELS) must be JSON text.'),
    );
  });

  it('is never looked for beside the bundle when the deploy hands it over in the environment', () => {
    const timeout = replicateSettings.settings.timeoutMs;
    ship('REPLICATE_TIMEOUT_MS.json', '2500');
    expect(readSetting(timeout, {}, bundleDir)).toBe(10_000);
  });
});
