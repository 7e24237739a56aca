import busboy from 'busboy';
import { badRequest } from './errors.ts';
import { setNested } from './body.ts';

// multipart/form-data bodies (uploads): fields keep Rails nested keys (`channel[type]`, `labels[]`),
// files become `UploadedFile` objects under their field names (`attachments[]` collects an array).

export interface UploadedFile {
  filename: string;
  content_type: string;
  data: Buffer;
  size: number;
}

export const isUploadedFile = (v: unknown): v is UploadedFile =>
  typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).data) && typeof (v as UploadedFile).filename === 'string';

export function parseMultipart(raw: Buffer, contentType: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const out: Record<string, unknown> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: { fieldSize: raw.length } });
    } catch {
      reject(badRequest('The multipart body has no boundary', 'malformed'));
      return;
    }
    // Files finish after their parts are read; the body is complete when both are done.
    let pending = 0;
    let closed = false;
    const settle = () => closed && pending === 0 && resolve(out);
    parser.on('field', (name, value) => setNested(out, name, value));
    parser.on('file', (name, stream, info) => {
      pending++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        setNested(out, name, { filename: info.filename ?? '', content_type: info.mimeType, data, size: data.length } satisfies UploadedFile);
        pending--;
        settle();
      });
    });
    parser.on('error', () => reject(badRequest('The multipart body is malformed', 'malformed')));
    parser.on('close', () => {
      closed = true;
      settle();
    });
    parser.end(raw);
  });
}
