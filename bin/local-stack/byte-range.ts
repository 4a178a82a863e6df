/**
 * A Range header read as RFC 9110 section 14 says (https://www.rfc-editor.org/rfc/rfc9110#section-14.1.2),
 * against a representation of `size` bytes: one byte range, first and last byte inclusive.
 * Several ranges, another unit or a malformed value may be ignored (the whole is served: 200);
 * a range that starts past the end, a zero-length suffix and any range of an empty file are
 * unsatisfiable (416).
 */
export interface ByteRange {
  start: number;
  end: number;
}

export function byteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const spec = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header ?? '');
  if (!spec) return undefined;
  const [, first = '', last = ''] = spec;
  if (first === '') {
    // A suffix: the last `last` bytes (all of them if the file is shorter).
    if (last === '') return undefined;
    const length = Number(last);
    return length === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
