/** A file of a request: its bytes (multipart), or the storage key it already has (a direct upload). */
export interface UploadedFile {
  filename: string;
  content_type: string;
  size: number;
  data?: Buffer;
  key?: string;
}

/** A file part of a multipart body: its bytes are here. */
export type FilePart = UploadedFile & { data: Buffer };

export const isUploadedFile = (v: unknown): v is FilePart =>
  typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).data) && typeof (v as UploadedFile).filename === 'string';
