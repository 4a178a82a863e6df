import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CATALOGUE, imagePrice, subscriptionRequired, videoPrice } from '#domain/catalogue/catalogue';

describe('prices', () => {
  it.each([
    ['vid-1-5-pro', 3, 15],
    ['vid-1-5-pro', 5, 25],
    ['vid-1-5-pro', 12, 60],
    ['vid-2-0', 3, 23],
    ['vid-2-0', 5, 38],
    ['vid-2-0', 12, 90],
    ['vid-2-0-fast', 3, 15],
    ['vid-2-0-fast', 5, 25],
    ['vid-2-0-fast', 12, 60],
  ] as const)('%s for %i s costs %i credits', (model, duration, credits) => {
    expect(videoPrice(model, duration)).toBe(credits);
  });

  it('charges 5 credits per image', () => {
    expect(imagePrice('image-2')).toBe(5);
  });

  it('needs a subscription for every model but the lite video model', () => {
    expect(subscriptionRequired('vid-1-5-pro')).toBe(false);
    expect(subscriptionRequired('vid-2-0')).toBe(true);
    expect(subscriptionRequired('vid-2-0-fast')).toBe(true);
    expect(subscriptionRequired('image-2')).toBe(true);
  });
});

describe('docs/interface.md', () => {
  const page = readFileSync(path.join(__dirname, '..', '..', 'docs', 'interface.md'), 'utf8');
  /** The "Credits" table's rows: model id, price words, subscription words. */
  const rows = [...page.matchAll(/^\| `([^`]+)`[^|]*\| ([^|]+) \| (required|not required) \|$/gm)].map((match) => ({
    id: match[1],
    price: match[2]!.trim(),
    subscription: match[3],
  }));

  it('lists every model of the catalogue, with its price per unit and subscription rule', () => {
    expect(rows.map((row) => row.id)).toEqual(CATALOGUE.map((entry) => entry.id));
    for (const entry of CATALOGUE) {
      const row = rows.find((candidate) => candidate.id === entry.id)!;
      expect(row.price.startsWith(`${entry.pricing.creditsPerUnit} per ${entry.pricing.unit}`)).toBe(true);
      expect(row.subscription).toBe(entry.subscriptionRequired ? 'required' : 'not required');
    }
  });
});
