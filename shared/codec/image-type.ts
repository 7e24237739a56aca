// What an image file is, read from its first bytes rather than from the name or the type a client declared:
// the raster formats browsers show everywhere (PNG, JPEG, GIF, WebP). SVG is none of them on purpose (it
// can carry script).

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const IMAGE_EXTENSIONS: Record<ImageType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const startsWith = (b: Buffer, bytes: number[], at = 0) => b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The image type the bytes' signature names, or undefined when they are no PNG, JPEG, GIF or WebP. */
export function imageTypeOf(b: Buffer): ImageType | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}
