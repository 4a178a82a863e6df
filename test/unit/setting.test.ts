import fc from 'fast-check';
import {
  checkValue,
  ConfigError,
  decimal,
  flag,
  httpUrl,
  jsonText,
  oneOf,
  oneOfNumbers,
  originList,
  readGroup,
  readSetting,
  secondsList,
  setting,
  wholeNumber,
  type Kind,
} from '#config/setting';

/**
 * The settings vocabulary (functions/config/setting.ts): each kind against a reference written
 * from its rule, on random text (an environment variable, `cdk -c key=value`) and random JSON
 * values (cdk.json), so a function and the deploy read a value alike.
 */
const verdict = <T>(kind: Kind<T>, raw: unknown) => {
  const checked = checkValue(kind, raw);
  return checked.ok ? { ok: true as const, value: checked.value } : { ok: false as const };
};

const anyJson = fc.jsonValue();
const digitsOrNot = fc.oneof(fc.integer({ min: -10_000, max: 10_000 }).map(String), fc.string(), fc.integer().map((n) => ` ${n} `));

describe('setting kinds, against their rules', () => {
  it('wholeNumber: digits from -c and numbers from cdk.json give the same, inside the bounds only', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: -100, max: 100 }), fc.option(fc.integer({ min: 0, max: 300 })), (n, min, span) => {
        const max = span === null ? undefined : min + span;
        const kind = wholeNumber(min, max);
        const expected = n >= min && (max === undefined || n <= max) ? { ok: true, value: n } : { ok: false };
        expect(verdict(kind, n)).toEqual(expected);
        expect(verdict(kind, String(n))).toEqual(expected);
      }),
    );
    fc.assert(
      fc.property(digitsOrNot, (raw) => {
        const reference = /^\s*-?\d+\s*$/.test(raw) && Number(raw) >= 0 ? { ok: true, value: Number(raw) } : { ok: false };
        expect(verdict(wholeNumber(0), raw)).toEqual(reference);
      }),
    );
    fc.assert(
      fc.property(anyJson, (value) => {
        fc.pre(typeof value !== 'number' && typeof value !== 'string');
        expect(verdict(wholeNumber(0), value)).toEqual({ ok: false });
      }),
    );
    expect(checkValue(wholeNumber(60), '5')).toEqual({ ok: false, message: 'must be a whole number >= 60' });
    expect(checkValue(wholeNumber(1, 15_000), 1.5)).toEqual({ ok: false, message: 'must be a whole number from 1 to 15000' });
  });

  it('flag: true or false, as text or JSON booleans, nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, fc.constantFrom('true', 'false', 'TRUE', 'yes')), (value) => {
        const reference = value === true || value === 'true' ? { ok: true, value: true } : value === false || value === 'false' ? { ok: true, value: false } : { ok: false };
        expect(verdict(flag, value)).toEqual(reference);
      }),
    );
  });

  it('httpUrl: http(s) URLs only, without their trailing slashes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(fc.constantFrom('http', 'https', 'ftp', 'file'), fc.domain(), fc.constantFrom('', '/', '/a/', '/a//')).map(([scheme, host, tail]) => `${scheme}://${host}${tail}`), fc.string()), (raw) => {
        let reference: { ok: boolean; value?: string } = { ok: false };
        try {
          if (['http:', 'https:'].includes(new URL(raw.trim()).protocol)) reference = { ok: true, value: raw.trim().replace(/\/+$/, '') };
        } catch {
          // not a URL
        }
        expect(verdict(httpUrl, raw)).toEqual(reference);
      }),
    );
  });

  it('jsonText: JSON text as given, or an object or array from cdk.json as its text', () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, fc.string(), anyJson.map((value) => JSON.stringify(value))), (value) => {
        let reference: { ok: boolean; value?: string } = { ok: false };
        if (typeof value === 'object' && value !== null) reference = { ok: true, value: JSON.stringify(value) };
        else if (typeof value === 'string') {
          try {
            JSON.parse(value);
            reference = { ok: true, value };
          } catch {
            // not JSON
          }
        }
        expect(verdict(jsonText, value)).toEqual(reference);
      }),
    );
  });

  it('oneOf, oneOfNumbers, decimal and the lists say what they take', () => {
    expect(checkValue(oneOf(['dev', 'prod']), 'staging')).toEqual({ ok: false, message: 'must be one of "dev", "prod"' });
    expect(verdict(oneOfNumbers([1, 3, 5]), '3')).toEqual({ ok: true, value: 3 });
    expect(checkValue(oneOfNumbers([1, 3, 5]), 4)).toEqual({ ok: false, message: 'must be one of 1, 3, 5' });
    expect(verdict(decimal({ above: 0, max: 1 }), '0.25')).toEqual({ ok: true, value: 0.25 });
    expect(checkValue(decimal({ above: 0, max: 1 }), 0)).toEqual({ ok: false, message: 'must be a number above 0 and at most 1' });
    expect(verdict(originList, 'http://127.0.0.1:4010/files, https://x.test')).toEqual({ ok: true, value: ['http://127.0.0.1:4010', 'https://x.test'] });
    expect(verdict(secondsList, '2, 10,30')).toEqual({ ok: true, value: [2, 10, 30] });
    expect(checkValue(secondsList, '2,soon')).toEqual({ ok: false, message: 'must be a comma-separated list of seconds' });
  });
});

describe('reading a setting from the environment', () => {
  const timeout = setting({ variable: 'TIMEOUT_SECONDS', context: 'timeoutSeconds', kind: wholeNumber(60), default: 1800, doc: 'test' });
  const table = setting({ variable: 'TABLE', kind: oneOf(['a', 'b']), required: true, doc: 'test' });
  const note = setting({ variable: 'NOTE', kind: oneOf(['a', 'b']), doc: 'test' });

  it('gives the default when unset or blank, names the variable and the value when it does not parse', () => {
    expect(readSetting(timeout, {})).toBe(1800);
    expect(readSetting(timeout, { TIMEOUT_SECONDS: '  ' })).toBe(1800);
    expect(readSetting(timeout, { TIMEOUT_SECONDS: ' 90 ' })).toBe(90);
    expect(() => readSetting(timeout, { TIMEOUT_SECONDS: '5' })).toThrow(new ConfigError('TIMEOUT_SECONDS must be a whole number >= 60; got "5".'));
    expect(() => readSetting(table, {})).toThrow(new ConfigError('Missing required environment variable TABLE.'));
    expect(readGroup({ timeout, table, note }, { TABLE: 'b' })).toEqual({ timeout: 1800, table: 'b', note: undefined });
  });
});
