/**
 * Where a request body stops being JSON, in words a client can act on ("expected a property
 * name in double quotes at line 1, column 18, found '}'"). JSON.parse's own messages differ by
 * Node version and some name no position, so the body is scanned again here (RFC 8259, the
 * grammar JSON.parse accepts). Iterative, so a deeply nested body cannot overflow the stack.
 */

export interface JsonSyntaxProblem {
  /** Zero-based offset of the first character that cannot continue the JSON text. */
  offset: number;
  /** One-based, as editors count. */
  line: number;
  column: number;
  expected: string;
  /** The character found there, quoted ('}'), or "the end of the body". */
  found: string;
}

type Expecting = 'value' | 'value or ]' | 'key' | 'key or }' | 'colon' | 'next';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const containers: Array<'{' | '['> = [];
  let expecting: Expecting = 'value';
  let i = 0;
  const problem = (expected: string, at = i): JsonSyntaxProblem => locate(text, at, expected);

  /** Scans a string from its opening quote; returns a problem, or moves `i` past the closing quote. */
  const scanString = (): JsonSyntaxProblem | undefined => {
    for (i += 1; ; ) {
      const char = text[i];
      if (char === undefined) return problem('a closing double quote');
      if (char === '"') {
        i += 1;
        return undefined;
      }
      if (char < ' ') return problem('an escaped control character (\\n, \\t, \\u0000 ...)');
      if (char === '\\') {
        const escape = text[i + 1];
        if (escape === 'u' ? !HEX4.test(text.slice(i + 2, i + 6)) : escape === undefined || !ESCAPES.has(escape)) {
          return problem('a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and 4 hex digits)', i + 1);
        }
        i += escape === 'u' ? 6 : 2;
      } else {
        i += 1;
      }
    }
  };

  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i += 1;
    const top = containers.at(-1);
    if (expecting === 'next' && top === undefined) return i < text.length ? problem('the end of the body') : undefined;
    const char = text[i];
    switch (expecting) {
      case 'value':
      case 'value or ]': {
        if (expecting === 'value or ]' && char === ']') {
          containers.pop();
          i += 1;
          expecting = 'next';
        } else if (char === '{' || char === '[') {
          containers.push(char);
          i += 1;
          expecting = char === '{' ? 'key or }' : 'value or ]';
        } else if (char === '"') {
          const bad = scanString();
          if (bad) return bad;
          expecting = 'next';
        } else {
          NUMBER.lastIndex = i;
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
          const length = literal?.length ?? (NUMBER.test(text) ? NUMBER.lastIndex - i : 0);
          if (length === 0) return problem(expecting === 'value' ? 'a value' : "a value or ']'");
          i += length;
          expecting = 'next';
        }
        break;
      }
      case 'key':
      case 'key or }':
        if (expecting === 'key or }' && char === '}') {
          containers.pop();
          i += 1;
          expecting = 'next';
        } else {
          if (char !== '"') return problem(expecting === 'key' ? 'a property name in double quotes' : "a property name in double quotes or '}'");
          const bad = scanString();
          if (bad) return bad;
          expecting = 'colon';
        }
        break;
      case 'colon':
        if (char !== ':') return problem("':' after the property name");
        i += 1;
        expecting = 'value';
        break;
      case 'next': {
        const close = top === '{' ? '}' : ']';
        if (char === ',') {
          i += 1;
          expecting = top === '{' ? 'key' : 'value';
        } else if (char === close) {
          containers.pop();
          i += 1;
        } else {
          return problem(`',' or '${close}'`);
        }
        break;
      }
    }
  }
}

function locate(text: string, offset: number, expected: string): JsonSyntaxProblem {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const char = text[offset];
  return { offset, line, column, expected, found: char === undefined ? 'the end of the body' : char < ' ' ? JSON.stringify(char) : `'${char}'` };
}

/** "expected ',' or '}' at line 1, column 7, found the end of the body" */
export function describeJsonSyntaxProblem(problem: JsonSyntaxProblem): string {
  return `expected ${problem.expected} at line ${problem.line}, column ${problem.column}, found ${problem.found}`;
}
