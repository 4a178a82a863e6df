import Busboy from '@fastify/busboy';
import { ValidationError } from '#domain/shared/errors';
import { MAX_UPLOAD_BYTES } from '#domain/catalogue/image-type';
import { type MultipartEvent, parseSingleFileUpload } from '#http/multipart';

const OPTIONS = { field: 'image', maxBytes: MAX_UPLOAD_BYTES };
const BOUNDARY = '----vidgenTestBoundary7MA4YWxkTrZu0gW';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const PNG_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/** An API Gateway proxy event as the gateway delivers it: base64 for binary media types. */
function event(
  body: Buffer | null,
  contentType: string | undefined,
  { base64 = true, headerName = 'Content-Type' }: { base64?: boolean; headerName?: string } = {},
): MultipartEvent {
  return {
    headers: contentType === undefined ? { Accept: '*/*' } : { Accept: '*/*', [headerName]: contentType },
    body: body === null ? null : body.toString(base64 ? 'base64' : 'utf8'),
    isBase64Encoded: base64,
  };
}

/** The encoding a real client produces: undici's FormData serialisation, with its own boundary. */
async function encode(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const response = new Response(form);
  return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type')! };
}

async function formEvent(form: FormData, options?: { base64?: boolean }): Promise<MultipartEvent> {
  const { body, contentType } = await encode(form);
  return event(body, contentType, options);
}

/** A hand-written part: its headers, a blank line, its content. */
function part(headers: string[], content: Buffer | string): Buffer {
  const head = `--${BOUNDARY}\r\n${headers.join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from('\r\n')]);
}
const filePart = (name: string, filename: string, content: Buffer | string, type = 'image/png') =>
  part([`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, `Content-Type: ${type}`], content);
const textPart = (name: string, value: string) => part([`Content-Disposition: form-data; name="${name}"`], value);
const multipart = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]);

/** Resolves to the ValidationError the parse rejected with; fails the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<ValidationError> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  expect(outcome).toHaveProperty('rejected');
  const error = (outcome as { rejected: unknown }).rejected;
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('parseSingleFileUpload: accepted uploads', () => {
  it('reads a file encoded by FormData (base64, as API Gateway sends binary media types)', async () => {
    const form = new FormData();
    form.append('image', new File([PNG_BYTES], 'cat.png', { type: 'image/png' }));

    const upload = await parseSingleFileUpload(await formEvent(form), OPTIONS);

    expect(upload).toEqual({ filename: 'cat.png', declaredType: 'image/png', bytes: PNG_BYTES });
  });

  it('reads a plain (not base64) body', async () => {
    const form = new FormData();
    form.append('image', new File(['plain text content'], 'notes.txt', { type: 'text/plain' }));

    const upload = await parseSingleFileUpload(await formEvent(form, { base64: false }), OPTIONS);

    expect(upload.bytes.toString('utf8')).toBe('plain text content');
    expect(upload.declaredType).toBe('text/plain');
  });

  it('returns every byte value unchanged', async () => {
    const all = Buffer.from(Array.from({ length: 256 * 4 }, (_, index) => index % 256));
    const form = new FormData();
    form.append('image', new File([all], 'bytes.bin'));

    const upload = await parseSingleFileUpload(await formEvent(form), OPTIONS);

    expect(upload.bytes.equals(all)).toBe(true);
  });

  it('ignores text fields around the file, and file order relative to them', async () => {
    const form = new FormData();
    form.append('caption', 'a cat');
    form.append('image', new File([PNG_BYTES], 'cat.png', { type: 'image/png' }));
    form.append('image_note', 'ignored too');

    const upload = await parseSingleFileUpload(await formEvent(form), OPTIONS);

    expect(upload.bytes).toEqual(PNG_BYTES);
  });

  it('reports the declared type and name but does not trust them (bytes are returned as sent)', async () => {
    const body = multipart(filePart('image', 'photo.jpg', 'not a jpeg', 'image/jpeg'));

    const upload = await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS);

    expect(upload).toEqual({ filename: 'photo.jpg', declaredType: 'image/jpeg', bytes: Buffer.from('not a jpeg') });
  });

  it('reports a part without Content-Type as text/plain (RFC 7578 default)', async () => {
    const body = multipart(part(['Content-Disposition: form-data; name="image"; filename="a.png"'], PNG_BYTES));

    const upload = await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS);

    expect(upload.declaredType).toBe('text/plain');
    expect(upload.bytes).toEqual(PNG_BYTES);
  });

  it('returns no filename for an empty one, and drops any directory part', async () => {
    const named = (filename: string) =>
      parseSingleFileUpload(event(multipart(filePart('image', filename, PNG_BYTES)), CONTENT_TYPE), OPTIONS);
    const empty = await named('');
    const windows = await named('C:\\Users\\me\\cat.png');
    const unix = await named('../../etc/cat.png');

    expect(empty.filename).toBeUndefined();
    expect(windows.filename).toBe('cat.png');
    expect(unix.filename).toBe('cat.png');
  });

  describe('unicode file names', () => {
    const name = 'фото 写真 😀 "quoted".png';

    it('as FormData encodes them (raw UTF-8, quotes escaped), base64 and plain', async () => {
      const form = new FormData();
      form.append('image', new File([PNG_BYTES], name, { type: 'image/png' }));

      const expected = 'фото 写真 😀 %22quoted%22.png';
      expect((await parseSingleFileUpload(await formEvent(form), OPTIONS)).filename).toBe(expected);
      expect((await parseSingleFileUpload(await formEvent(form, { base64: false }), OPTIONS)).filename).toBe(expected);
    });

    it('as raw UTF-8 written by hand', async () => {
      const body = multipart(filePart('image', 'фото 写真 😀.png', PNG_BYTES));

      expect((await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS)).filename).toBe('фото 写真 😀.png');
    });

    it("as RFC 5987 filename*=UTF-8''", async () => {
      const encoded = encodeURIComponent('фото 写真 😀.png');
      const body = multipart(
        part([`Content-Disposition: form-data; name="image"; filename*=UTF-8''${encoded}`, 'Content-Type: image/png'], PNG_BYTES),
      );

      expect((await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS)).filename).toBe('фото 写真 😀.png');
    });
  });

  describe('header casing', () => {
    const body = multipart(filePart('image', 'a.png', PNG_BYTES));

    it.each(['Content-Type', 'content-type', 'CONTENT-TYPE', 'cOnTeNt-TyPe'])('finds the %s header', async (headerName) => {
      const upload = await parseSingleFileUpload(event(body, CONTENT_TYPE, { headerName }), OPTIONS);

      expect(upload.bytes).toEqual(PNG_BYTES);
    });

    it.each([
      `Multipart/Form-Data; boundary=${BOUNDARY}`,
      `MULTIPART/FORM-DATA; BOUNDARY=${BOUNDARY}`,
      `multipart/form-data; boundary="${BOUNDARY}"`,
      `multipart/form-data;boundary=${BOUNDARY}`,
      `multipart/form-data; charset=utf-8; boundary=${BOUNDARY}`,
      `multipart/form-data; boundary=${BOUNDARY}; charset=utf-8`,
    ])('accepts Content-Type %s', async (contentType) => {
      const upload = await parseSingleFileUpload(event(body, contentType), OPTIONS);

      expect(upload.bytes).toEqual(PNG_BYTES);
    });

    it('accepts part headers in any case', async () => {
      const lower = multipart(
        part(['content-disposition: form-data; name="image"; filename="a.png"', 'content-type: image/png'], PNG_BYTES),
      );
      const upper = multipart(
        part(['CONTENT-DISPOSITION: form-data; NAME="image"; FILENAME="a.png"', 'CONTENT-TYPE: IMAGE/PNG'], PNG_BYTES),
      );

      expect(await parseSingleFileUpload(event(lower, CONTENT_TYPE), OPTIONS)).toEqual({
        filename: 'a.png',
        declaredType: 'image/png',
        bytes: PNG_BYTES,
      });
      expect(await parseSingleFileUpload(event(upper, CONTENT_TYPE), OPTIONS)).toEqual({
        filename: 'a.png',
        declaredType: 'image/png',
        bytes: PNG_BYTES,
      });
    });
  });

  describe('CRLF handling', () => {
    it('keeps CR, LF and boundary look-alikes inside the file, and strips only the delimiter CRLF', async () => {
      const tricky = Buffer.from(`line one\r\nline two\n\r\n--${BOUNDARY.slice(0, -1)}X\r\n--\r\n\r\n`);
      const body = multipart(filePart('image', 'a.bin', tricky));

      const upload = await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS);

      expect(upload.bytes.equals(tricky)).toBe(true);
    });

    it('accepts a preamble before the first boundary and an epilogue after the last', async () => {
      const body = Buffer.concat([
        Buffer.from('This is a preamble.\r\n'),
        multipart(filePart('image', 'a.png', PNG_BYTES)),
        Buffer.from('This is an epilogue.\r\n'),
      ]);

      expect((await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS)).bytes).toEqual(PNG_BYTES);
    });

    it('accepts a closing delimiter without a trailing CRLF', async () => {
      const body = Buffer.concat([filePart('image', 'a.png', PNG_BYTES), Buffer.from(`--${BOUNDARY}--`)]);

      expect((await parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS)).bytes).toEqual(PNG_BYTES);
    });

    it('refuses a body whose line breaks were converted to bare LF', async () => {
      const crlf = multipart(filePart('image', 'a.txt', 'hello')).toString('latin1');
      const body = Buffer.from(crlf.replace(/\r\n/g, '\n'), 'latin1');

      const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

      expect(error.message).toBe('body: the multipart/form-data body is malformed or truncated');
    });
  });

  describe('the size limit', () => {
    it('accepts exactly 10 MiB', async () => {
      const bytes = Buffer.alloc(MAX_UPLOAD_BYTES, 0xab);
      const form = new FormData();
      form.append('image', new File([bytes], 'big.png', { type: 'image/png' }));

      const upload = await parseSingleFileUpload(await formEvent(form), OPTIONS);

      expect(upload.bytes.length).toBe(MAX_UPLOAD_BYTES);
      expect(upload.bytes.equals(bytes)).toBe(true);
    });

    it('refuses 10 MiB + 1 byte', async () => {
      const form = new FormData();
      form.append('image', new File([Buffer.alloc(MAX_UPLOAD_BYTES + 1, 0xab)], 'big.png', { type: 'image/png' }));

      const error = await rejection(parseSingleFileUpload(await formEvent(form), OPTIONS));

      expect(error.message).toBe('image: the file is larger than 10 MiB (10485760 bytes)');
      expect(error.field).toBe('image');
    });

    it('stops reading once over the limit: what follows is never fed to the parser', async () => {
      // Over the limit, then 4 MiB more and a second file, and no closing delimiter. Reading on
      // would feed all of it; the first problem found is the one reported.
      const body = Buffer.concat([
        filePart('image', 'big.png', Buffer.alloc(MAX_UPLOAD_BYTES + 1)),
        filePart('other', 'b.png', Buffer.alloc(4 * 1024 * 1024)),
        Buffer.from(`--${BOUNDARY}\r\nContent-Disp`),
      ]);
      const parserPrototype = (Busboy as unknown as { prototype: { _write: (chunk: Buffer, ...rest: unknown[]) => void } })
        .prototype;
      const write = jest.spyOn(parserPrototype, '_write');

      try {
        const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

        expect(error.message).toBe('image: the file is larger than 10 MiB (10485760 bytes)');
        // Give a parser that kept reading the time to do so (it would take a few ms).
        await new Promise((resolve) => setTimeout(resolve, 200));
        const fed = write.mock.calls.reduce((total, [chunk]) => total + chunk.length, 0);
        expect(fed).toBeGreaterThan(MAX_UPLOAD_BYTES);
        expect(fed).toBeLessThan(MAX_UPLOAD_BYTES + 1024 * 1024);
      } finally {
        write.mockRestore();
      }
    });

    it('uses the limit it is given', async () => {
      const body = multipart(filePart('image', 'a.png', PNG_BYTES));

      const withLimit = (maxBytes: number) => parseSingleFileUpload(event(body, CONTENT_TYPE), { field: 'image', maxBytes });

      await expect(withLimit(PNG_BYTES.length)).resolves.toEqual(expect.objectContaining({ bytes: PNG_BYTES }));
      const error = await rejection(withLimit(PNG_BYTES.length - 1));
      expect(error.message).toBe('image: the file is larger than 15 bytes');
    });
  });
});

describe('parseSingleFileUpload: refused uploads', () => {
  const validBody = multipart(filePart('image', 'a.png', PNG_BYTES));

  describe('Content-Type', () => {
    it.each<[string, string | undefined]>([
      ['missing', undefined],
      ['empty', ''],
      ['JSON', 'application/json'],
      ['urlencoded', 'application/x-www-form-urlencoded'],
      ['text/plain with a boundary', `text/plain; boundary=${BOUNDARY}`],
      ['multipart/mixed', `multipart/mixed; boundary=${BOUNDARY}`],
      ['multipart/form-data without a boundary', 'multipart/form-data'],
      ['multipart/form-data with an empty boundary', 'multipart/form-data; boundary='],
      ['multipart/form-data with an empty quoted boundary', 'multipart/form-data; boundary=""'],
      ['a boundary over 70 characters', `multipart/form-data; boundary=${'b'.repeat(71)}`],
      ['a boundary only in a look-alike parameter', `multipart/form-data; xboundary=${BOUNDARY}`],
    ])('%s', async (_name, contentType) => {
      const error = await rejection(parseSingleFileUpload(event(validBody, contentType), OPTIONS));

      expect(error.message).toBe('Content-Type must be multipart/form-data with a boundary');
      expect(error.field).toBe('Content-Type');
    });

    it('a headers object of null (as some test events have)', async () => {
      const headers = null as unknown as MultipartEvent['headers'];

      const error = await rejection(parseSingleFileUpload({ headers, body: null, isBase64Encoded: false }, OPTIONS));

      expect(error.field).toBe('Content-Type');
    });
  });

  describe('malformed or truncated bodies', () => {
    const whole = multipart(filePart('image', 'a.png', PNG_BYTES));
    const cases: Array<[string, Buffer | null]> = [
      ['no body at all', null],
      ['an empty body', Buffer.alloc(0)],
      ['text that is not multipart', Buffer.from('image=hello')],
      ['a body with a different boundary', Buffer.from(whole.toString('latin1').replaceAll(BOUNDARY, 'other'), 'latin1')],
      ['a body cut inside the part headers', whole.subarray(0, BOUNDARY.length + 30)],
      ['a body cut inside the file', whole.subarray(0, whole.length - BOUNDARY.length - 15)],
      ['a body cut before the closing delimiter', whole.subarray(0, whole.length - BOUNDARY.length - 6)],
      ['a body cut inside the closing delimiter', whole.subarray(0, whole.length - 6)],
    ];

    it.each(cases)('%s', async (_name, body) => {
      const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

      expect(error.message).toBe('body: the multipart/form-data body is malformed or truncated');
      expect(error.field).toBe('body');
    });

    it('the same, truncated, through base64 and plain events', async () => {
      for (const base64 of [true, false]) {
        const error = await rejection(parseSingleFileUpload(event(whole.subarray(0, 60), CONTENT_TYPE, { base64 }), OPTIONS));
        expect(error.field).toBe('body');
      }
    });
  });

  it('no part named image', async () => {
    const form = new FormData();
    form.append('file', new File([PNG_BYTES], 'a.png', { type: 'image/png' }));
    form.append('caption', 'x');

    const error = await rejection(parseSingleFileUpload(await formEvent(form), OPTIONS));

    expect(error.message).toBe('image: a file part named "image" is required');
    expect(error.field).toBe('image');
  });

  it('no parts at all (only the closing delimiter)', async () => {
    const error = await rejection(parseSingleFileUpload(event(multipart(), CONTENT_TYPE), OPTIONS));

    expect(error.message).toBe('image: a file part named "image" is required');
  });

  it('a part name that differs only in case', async () => {
    const body = multipart(filePart('Image', 'a.png', PNG_BYTES));

    const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

    expect(error.message).toBe('image: a file part named "image" is required');
  });

  it.each<[string, () => FormData]>([
    [
      'two image files',
      () => {
        const form = new FormData();
        form.append('image', new File([PNG_BYTES], 'a.png', { type: 'image/png' }));
        form.append('image', new File([PNG_BYTES], 'b.png', { type: 'image/png' }));
        return form;
      },
    ],
    [
      'an image and another file',
      () => {
        const form = new FormData();
        form.append('image', new File([PNG_BYTES], 'a.png', { type: 'image/png' }));
        form.append('mask', new File([PNG_BYTES], 'b.png', { type: 'image/png' }));
        return form;
      },
    ],
    [
      'another file before the image',
      () => {
        const form = new FormData();
        form.append('mask', new File([PNG_BYTES], 'b.png', { type: 'image/png' }));
        form.append('image', new File([PNG_BYTES], 'a.png', { type: 'image/png' }));
        return form;
      },
    ],
  ])('a second file part: %s', async (_name, makeForm) => {
    const error = await rejection(parseSingleFileUpload(await formEvent(makeForm()), OPTIONS));

    expect(error.message).toMatch(/^(image|mask): only one file part is allowed$/);
  });

  it('a second file part names itself in the message', async () => {
    const body = multipart(filePart('image', 'a.png', PNG_BYTES), filePart('mask', 'b.png', PNG_BYTES));

    const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

    expect(error.message).toBe('mask: only one file part is allowed');
    expect(error.field).toBe('mask');
  });

  it('a part named image that is not a file (no filename)', async () => {
    const form = new FormData();
    form.append('image', 'https://example.com/cat.png');

    const error = await rejection(parseSingleFileUpload(await formEvent(form), OPTIONS));

    expect(error.message).toBe('image: must be a file (a part with a filename), not a text field');
    expect(error.field).toBe('image');
  });

  it('a part named image without a filename, even when it declares an image type', async () => {
    const body = multipart(part(['Content-Disposition: form-data; name="image"', 'Content-Type: image/png'], PNG_BYTES));

    const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

    expect(error.field).toBe('image');
    expect(error.message).toContain('not a text field');
  });

  it('a text field named image next to a file named image', async () => {
    const body = multipart(textPart('image', 'x'), filePart('image', 'a.png', PNG_BYTES));

    const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

    expect(error.message).toBe('image: must be a file (a part with a filename), not a text field');
  });

  it('an empty file', async () => {
    const form = new FormData();
    form.append('image', new File([], 'empty.png', { type: 'image/png' }));

    const error = await rejection(parseSingleFileUpload(await formEvent(form), OPTIONS));

    expect(error.message).toBe('image: the file is empty');
    expect(error.field).toBe('image');
  });

  it('an empty file with no name (a browser form submitted without choosing a file)', async () => {
    const body = multipart(filePart('image', '', '', 'application/octet-stream'));

    const error = await rejection(parseSingleFileUpload(event(body, CONTENT_TYPE), OPTIONS));

    expect(error.message).toBe('image: the file is empty');
  });
});
