import { describe, expect, it } from 'vitest';
import { MULTIPART_LIMITS, parseMultipart } from '#shared/http/multipart.ts';
import { ServiceError } from '#shared/errors.ts';

// The multipart parser on its own: every malformed body is a rejected promise with a 4xx, never an
// error event that escapes.

const B = 'unitBoundary';
const type = `multipart/form-data; boundary=${B}`;
const field = (name: string, value: string) => `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const file = (name: string, data: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="f.txt"\r\nContent-Type: text/plain\r\n\r\n${data}\r\n`;
const end = `--${B}--\r\n`;

async function failure(body: string | Buffer, contentType = type, maxBytes = 1 << 20) {
  const err = await parseMultipart(Buffer.isBuffer(body) ? body : Buffer.from(body), contentType, { maxBytes }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

describe('parseMultipart', () => {
  it('parses Rails nested fields and files', async () => {
    const out = await parseMultipart(
      Buffer.from(field('contact[name]', 'Ann') + field('labels[]', 'a') + field('labels[]', 'b') + file('attachments[]', 'hello') + end),
      type,
    );
    expect(out.contact).toEqual({ name: 'Ann' });
    expect(out.labels).toEqual(['a', 'b']);
    expect(out.attachments).toEqual([{ filename: 'f.txt', content_type: 'text/plain', data: Buffer.from('hello'), size: 5 }]);
  });

  it('drops parts without a name', async () => {
    expect(await parseMultipart(Buffer.from(`--${B}\r\nContent-Disposition: form-data\r\n\r\nx\r\n${end}`), type)).toEqual({});
  });

  it('answers 400 for a file part cut before its boundary, a cut header, a wrong boundary or none', async () => {
    expect((await failure(file('a', 'half').slice(0, -2))).kind).toBe('bad_request');
    expect((await failure(`--${B}\r\nContent-Disposition: form-da`)).kind).toBe('bad_request');
    expect((await failure(`${file('a', 'x').replaceAll(B, 'other')}--other--\r\n`)).kind).toBe('bad_request');
    expect((await failure(file('a', 'x') + end, 'multipart/form-data')).kind).toBe('bad_request');
    expect((await failure(`--${B}\r\n\r\n\r\n${end}`)).errors[0].code).toBe('malformed');
  });

  it('answers 413 for too many parts or files, and for a file over the limit', async () => {
    expect((await failure(field('a[]', 'x').repeat(MULTIPART_LIMITS.parts + 1) + end)).kind).toBe('too_large');
    expect((await failure(file('f[]', 'x').repeat(MULTIPART_LIMITS.files + 1) + end)).kind).toBe('too_large');
    const big = await failure(file('f', 'y'.repeat(2000)) + end, type, 1000);
    expect(big.kind).toBe('too_large');
    expect(big.errors[0].code).toBe('too_large');
  });
});
