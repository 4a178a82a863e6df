import { readFileSync } from 'node:fs';
import path from 'node:path';
import { banner, type BannerFacts } from '#bin/local-stack/banner';
import { REPO_ROOT } from '#bin/local-stack/settings';

/**
 * README.md's sample of what `npm start` prints shows every line the banner prints, in order:
 * the same labels, the same continuation lines (the values differ from machine to machine).
 */
const FACTS: BannerFacts = {
  baseUrl: 'http://127.0.0.1:3000/api/v1',
  apiKey: 'vg_live_x',
  accountId: 'acc_x',
  credits: 1000,
  created: true,
  dynamodbEndpoint: 'http://127.0.0.1:8000',
  tableName: 'vidgen-local',
  s3Endpoint: 'http://127.0.0.1:4569',
  mediaBucket: 'vidgen-media-local',
  customerBucket: 'customer-deliveries',
  deliveryRetrySchedule: '1,2,5,10,30',
  retentionDaySeconds: '86400',
  identity: { endpoint: 'http://127.0.0.1:9229', userPoolId: 'local_x', clientId: 'x' },
  stripeSimulatorUrl: 'http://127.0.0.1:41234',
  stripeTokenFile: '/repo/.data/stripe-simulator.json',
  dataDir: '/repo/.data',
  otherShells: [],
};

/** A line's shape: its label (the value starts at column 18), a continuation's first words, or its first words. */
function shape(line: string): string {
  if (/^ {2}\S/.test(line) && line.slice(2, 18).endsWith('  ')) return `label ${line.slice(2, 18).trim()}`;
  if (line.startsWith(' '.repeat(18))) return `more ${line.trim().split(/\s+/).slice(0, 3).join(' ')}`;
  return `text ${line.trim().split(/\s+/).slice(0, 3).join(' ')}`;
}
const shapes = (text: string) => text.split('\n').filter((line) => line.trim() !== '').map(shape);

it("README.md's npm start sample shows every line the banner prints, in order", () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const sample = /`npm start` prints:\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(sample).toBeDefined();
  expect(shapes(sample!)).toEqual(shapes(banner(FACTS)));
  // The lines that were missing: the console, the verification codes, the Stripe simulator.
  expect(shapes(banner(FACTS))).toEqual(expect.arrayContaining(['label Console', 'more verification codes are', 'label Stripe']));
});
