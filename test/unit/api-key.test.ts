import {
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyIdFromHash,
  modeOfApiKey,
  parseBearer,
  sameHash,
} from '#domain/accounts/api-key';

describe('API keys', () => {
  it('look like vg_live_ + 40 base62 characters and are well-formed', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^vg_live_[0-9A-Za-z]{40}$/);
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('of test mode look like vg_test_ + 40 base62 characters, and say so', () => {
    const key = generateApiKey('test');
    expect(key).toMatch(/^vg_test_[0-9A-Za-z]{40}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(modeOfApiKey(key)).toBe('test');
    expect(modeOfApiKey(generateApiKey())).toBe('live');
  });

  it('are unique and use the whole base62 alphabet', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const characters = new Set(keys.join('').slice(0).replaceAll(API_KEY_PREFIX, ''));
    expect(characters.size).toBe(62);
  });

  it.each([
    ['', false],
    ['vg_live_', false],
    ['vg_live_short', false],
    [`vg_test_${'a'.repeat(40)}`, true],
    [`vg_test_${'a'.repeat(31)}`, false],
    [`vg_demo_${'a'.repeat(40)}`, false],
    [`vg_live_${'a'.repeat(31)}`, false],
    [`vg_live_${'a'.repeat(32)}`, true],
    [`vg_live_${'a'.repeat(39)}-`, false],
    [`vg_live_${'a'.repeat(129)}`, false],
  ])('isWellFormedApiKey(%j) is %s', (key, expected) => {
    expect(isWellFormedApiKey(key)).toBe(expected);
  });

  it('hash to a stable SHA-256 and a key id derived from it', () => {
    const hash = hashApiKey('vg_live_example');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('vg_live_example')).toBe(hash);
    expect(keyIdFromHash(hash)).toBe(`key_${hash.slice(0, 24)}`);
  });

  it('compares hashes in constant time and rejects different lengths', () => {
    const hash = hashApiKey('a');
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, hashApiKey('b'))).toBe(false);
    expect(sameHash(hash, hash.slice(0, 62))).toBe(false);
  });

  it.each([
    [undefined, undefined],
    ['', undefined],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Basic abc', undefined],
    ['Bearer abc def', undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
  ])('parseBearer(%j) gives %j', (header, expected) => {
    expect(parseBearer(header)).toBe(expected);
  });
});
