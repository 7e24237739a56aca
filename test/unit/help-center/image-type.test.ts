import { describe, expect, it } from 'vitest';
import { imageTypeOf } from '#shared/codec/image-type.ts';

// What an uploaded image is, by its bytes (shared/codec/image-type.ts): the four raster formats, nothing else.

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

describe('imageTypeOf', () => {
  it('names PNG, JPEG, GIF (87a and 89a) and WebP by their signatures', () => {
    expect(imageTypeOf(bytes([0x89], 'PNG\r\n\x1a\n', 'rest'))).toBe('image/png');
    expect(imageTypeOf(bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'))).toBe('image/jpeg');
    expect(imageTypeOf(bytes('GIF87a', [1, 2]))).toBe('image/gif');
    expect(imageTypeOf(bytes('GIF89a'))).toBe('image/gif');
    expect(imageTypeOf(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).toBe('image/webp');
  });

  it('names nothing else: SVG, HTML, PDF, a RIFF that is no WebP, cut signatures, nothing', () => {
    for (const b of [
      bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      bytes('<html><script>alert(1)</script>'),
      bytes('%PDF-1.7'),
      bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '),
      bytes([0x89], 'PNG\r\n'),
      bytes('GIF8'),
      bytes([0xff, 0xd8]),
      Buffer.alloc(0),
    ])
      expect(imageTypeOf(b)).toBeUndefined();
  });
});
