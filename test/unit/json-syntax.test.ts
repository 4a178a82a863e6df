import { describeJsonSyntaxProblem, findJsonSyntaxError } from '#http/json-syntax';
import { toHttpError } from '#http/error-mapping';

/** Where a malformed JSON body breaks (issue 17, item 8). */
const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('findJsonSyntaxError agrees with JSON.parse', () => {
  const valid = [
    '{}',
    '[]',
    ' {"prompt":"a fox","duration":5} ',
    '{"a":[1,-2.5e+3,0,0.1,true,false,null,"x\\n\\u00e9\\"",{"b":{}}]}',
    '"just a string"',
    '12',
    '\n\t[ [ ] , { } ]\r\n',
  ];
  const invalid = [
    '{"prompt":"a fox",}',
    '{"a":1',
    '',
    '{\n"a": x}',
    'nope',
    "{'a':1}",
    '{"a" 1}',
    '[1,]',
    '[1 2]',
    '01',
    '1.',
    '-',
    '{"a":"line\nbreak"}',
    '{"a":"\\x"}',
    '{"a":"\\u12"}',
    '{"a":"unterminated',
    '{} {}',
    '{"a":1}}',
    '\uFEFF{}',
    'tru',
    '[1e]',
  ];
  it.each(valid)('finds nothing in %j', (text) => {
    expect(parses(text)).toBe(true);
    expect(findJsonSyntaxError(text)).toBeUndefined();
  });
  it.each(invalid)('finds a problem in %j', (text) => {
    expect(parses(text)).toBe(false);
    expect(findJsonSyntaxError(text)).toBeDefined();
  });

  it('survives nesting deeper than a recursive parser could go', () => {
    expect(findJsonSyntaxError('['.repeat(200_000))).toMatchObject({ found: 'the end of the body', expected: "a value or ']'" });
  });
});

describe('where and what', () => {
  it.each([
    ['{"prompt":"a fox",}', "expected a property name in double quotes at line 1, column 19, found '}'"],
    ['{"a":1', "expected ',' or '}' at line 1, column 7, found the end of the body"],
    ['{\n  "prompt": "a fox"\n  "duration": 5\n}', "expected ',' or '}' at line 3, column 3, found '\"'"],
    ["{'prompt':'a fox'}", "expected a property name in double quotes or '}' at line 1, column 2, found '''"],
    ['{"prompt" "a fox"}', "expected ':' after the property name at line 1, column 11, found '\"'"],
    ['{"a":"line\nbreak"}', 'expected an escaped control character (\\n, \\t, \\u0000 ...) at line 1, column 11, found "\\n"'],
    ['{"a":1} x', "expected the end of the body at line 1, column 9, found 'x'"],
  ])('%j: %s', (text, words) => {
    expect(describeJsonSyntaxProblem(findJsonSyntaxError(text)!)).toBe(words);
  });
});

describe('the answer to a malformed body', () => {
  /** What @middy/http-json-body-parser throws, as it throws it. */
  const parserError = (body: string | undefined, parseMessage?: string) =>
    Object.assign(new Error('Invalid or malformed JSON was provided'), {
      statusCode: 415,
      cause: { package: '@middy/http-json-body-parser', data: body, ...(parseMessage && { message: parseMessage }) },
    });

  it('says the body is not valid JSON, and where, though the Content-Type was right', () => {
    expect(toHttpError(parserError('{"prompt":"a fox",}', 'Expected double-quoted property name in JSON at position 18'))).toEqual({
      status: 400,
      code: 'validation_error',
      message:
        "The request body is not valid JSON: expected a property name in double quotes at line 1, column 19, found '}'.",
    });
    expect(toHttpError(parserError('   ', 'Unexpected end of JSON input')).message).toBe(
      'The request body is empty: send a JSON object with Content-Type: application/json.',
    );
  });

  it('keeps the Content-Type message for a body sent without the JSON Content-Type', () => {
    const wrongType = Object.assign(new Error('Unsupported Media Type'), {
      statusCode: 415,
      cause: { package: '@middy/http-json-body-parser', data: 'text/plain' },
    });
    expect(toHttpError(wrongType).message).toBe('The request body must be a JSON object sent with Content-Type: application/json.');
  });
});
