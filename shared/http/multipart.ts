import type busboy from 'busboy';
import { ServiceError, badRequest, tooLarge } from '#shared/errors.ts';
import { setNested } from './body.ts';
import type { FilePart } from '#shared/model/uploads.ts';

// multipart/form-data bodies (uploads): fields keep Rails nested keys (`channel[type]`, `labels[]`),
// files become `UploadedFile` objects under their field names (`attachments[]` collects an array). The parser
// (busboy) is loaded on the first multipart body (a dynamic import): the routes that take uploads mostly get JSON.

/**
 * Rack's own bounds on a multipart body (files, total parts) so that a body of thousands of tiny parts
 * is refused before it costs anything; one file may be as large as the route's body allows (what a
 * route keeps smaller, like an avatar, its schema checks).
 */
export const MULTIPART_LIMITS = { parts: 1024, files: 128, fields: 1024, headerPairs: 32 };

const malformed = (why: string) => badRequest(`The multipart body is malformed: ${why}`, 'malformed');
const overLimit = (what: string) =>
  new ServiceError('too_large', `The multipart body has ${what}`, [
    { field: '', message: `Too many or too large parts: ${what}`, code: 'too_large' },
  ]);

/**
 * Parses a complete multipart body. Every way it can fail (no boundary, cut inside a part or its
 * headers, wrong boundary, too many parts, a part over the limit) rejects with a 4xx; busboy reports
 * some of them on the file streams rather than on the parser, so every stream gets an error listener.
 */
export async function parseMultipart(
  raw: Buffer,
  contentType: string,
  limits: { maxBytes: number } = { maxBytes: raw.length },
): Promise<Record<string, unknown>> {
  const { default: busboy } = await import('busboy');
  return new Promise((resolve, reject) => {
    const out: Record<string, unknown> = {};
    let failed: Error | undefined;
    let parser: busboy.Busboy;
    const fail = (err: Error) => {
      if (failed) return;
      failed = err;
      reject(err);
      // Stop reading: nothing after the first failure matters, and a destroyed parser emits no more.
      parser?.destroy();
    };
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: {
          ...MULTIPART_LIMITS,
          fileSize: limits.maxBytes,
          fieldSize: limits.maxBytes,
        },
      });
    } catch {
      reject(malformed('no boundary in the content type'));
      return;
    }
    // Files finish after their parts are read; the body is complete when both are done.
    let pending = 0;
    let closed = false;
    const settle = () => {
      if (failed || !closed || pending > 0) return;
      resolve(out);
    };
    // A part without a name has nowhere to go; Rack drops it too.
    parser.on('field', (name, value, info) => {
      if (failed) return;
      if (info.valueTruncated) return fail(tooLarge(limits.maxBytes));
      if (name) setNested(out, name, value);
    });
    parser.on('file', (name, stream, info) => {
      pending++;
      const chunks: Buffer[] = [];
      stream.on('error', () => fail(malformed('a file part ends before its boundary')));
      stream.on('limit', () => fail(overLimit(`a file larger than ${limits.maxBytes} bytes`)));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        pending--;
        if (failed) return;
        const data = Buffer.concat(chunks);
        if (name)
          setNested(out, name, { filename: info.filename ?? '', content_type: info.mimeType, data, size: data.length } satisfies FilePart);
        settle();
      });
    });
    parser.on('partsLimit', () => fail(overLimit(`more than ${MULTIPART_LIMITS.parts} parts`)));
    parser.on('filesLimit', () => fail(overLimit(`more than ${MULTIPART_LIMITS.files} files`)));
    parser.on('fieldsLimit', () => fail(overLimit(`more than ${MULTIPART_LIMITS.fields} fields`)));
    parser.on('error', (err: Error) => fail(malformed(err.message.toLowerCase())));
    parser.on('close', () => {
      closed = true;
      settle();
      // A parser that closed without an error while a file stream never ended is a body cut short.
      if (!failed && pending > 0) setImmediate(() => pending > 0 && fail(malformed('a file part ends before its boundary')));
    });
    try {
      parser.end(raw);
    } catch (err) {
      fail(malformed((err as Error).message.toLowerCase()));
    }
  });
}
