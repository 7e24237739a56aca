import { describe, expect, it } from 'vitest';
import { decodeQueueBody, encodeQueueBody, isQueueSafe, queueSafeText } from '#shared/codec/queue-text.ts';

// SQS's character set: #x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD | #x10000–#x10FFFF; the emulator
// refuses astral characters too, so an encoded body must be BMP-only and inside that set.
// biome-ignore lint/suspicious/noControlCharactersInRegex: SQS's allowed set, control characters included.
const sqsCarries = (s: string) => /^[\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]*$/.test(s);

const CLASSES: Record<string, string> = {
  ascii: 'plain text, "quoted" \\ slashed /',
  nul: 'a\u0000b',
  c0: Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join(''),
  del: '\u007f\u0080\u009f',
  bmp: 'héllo мир 你好 ✓',
  rtl: '\u200f\u202eשלום\u202c\u200e',
  bomAndSpecials: '\ufeff\ufff9\ufffc\ufffd',
  lastBeforeSurrogates: '\ud7ff',
  privateUse: '\ue000\uf8ff',
  nonCharacters: '\ufffe\uffff\ufdd0\ufdef',
  emoji: 'thanks 👍 🇺🇳 👩‍👩‍👧',
  astral: '\u{10000}\u{1d11e}\u{20000}\u{e0001}\u{10fffd}\u{10ffff}',
  loneHigh: 'a\ud83db',
  loneLow: 'a\udc4db',
  reversedPair: '\udc4d\ud83d',
  trailingHigh: 'end\ud83d',
};

describe('queue body codec', () => {
  for (const [name, text] of Object.entries(CLASSES)) {
    it(`round-trips ${name} in values and keys, as a body SQS carries`, () => {
      const value = { content: text, nested: [{ [text]: text }], n: 1, ok: true, none: null };
      const body = encodeQueueBody(value);
      expect(sqsCarries(body)).toBe(true);
      expect(isQueueSafe(body)).toBe(true);
      expect(decodeQueueBody(body)).toEqual(value);
    });
  }

  it('round-trips every code point from U+0000 to U+10FFFF, and every lone surrogate', () => {
    const parts: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) parts.push(String.fromCodePoint(cp));
    const all = parts.join('');
    const body = encodeQueueBody({ all });
    expect(sqsCarries(body)).toBe(true);
    expect(decodeQueueBody<{ all: string }>(body).all === all).toBe(true);
  });

  it('leaves text SQS carries as it is (only the unsafe characters grow)', () => {
    expect(encodeQueueBody({ a: 'héllo ✓ \t\n' })).toBe(JSON.stringify({ a: 'héllo ✓ \t\n' }));
    expect(encodeQueueBody({ a: '👍\ufffe' })).toBe('{"a":"\\ud83d\\udc4d\\ufffe"}');
  });

  it('keeps a JSON string inside a body (a delivery payload) byte for byte', () => {
    const payload = JSON.stringify({ content: 'thanks 👍 \uffff \u202e' });
    const out = decodeQueueBody<{ body: string }>(encodeQueueBody({ body: payload }));
    expect(out.body).toBe(payload);
  });

  it('isQueueSafe and queueSafeText agree with the SQS character set', () => {
    expect(isQueueSafe('ok 👍 ✓')).toBe(true);
    for (const bad of ['\u0000', '\u0001', '\ufffe', '\uffff', '\ud800', '\udc00', 'x\ud83d']) {
      expect(isQueueSafe(bad)).toBe(false);
      expect(sqsCarries(queueSafeText(bad))).toBe(true);
    }
    expect(queueSafeText('bad \ufffe')).toBe('bad \\ufffe');
  });

  it('refuses what is not JSON', () => {
    expect(() => encodeQueueBody(undefined)).toThrow(TypeError);
  });
});
