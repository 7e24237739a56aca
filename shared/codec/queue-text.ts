// The one codec for queue message bodies. SQS carries only #x9 #xA #xD #x20–#xD7FF #xE000–#xFFFD
// #x10000–#x10FFFF (and emulators refuse astral characters too), while the API accepts any text the data
// model can hold. Bodies are JSON, and every character SQS cannot take can only sit inside a JSON string,
// where a \uXXXX escapeChar means the same thing: escaping them keeps the body lossless, and JSON.parse is
// the decoder. Astral characters are escaped as their surrogate pair, so the body is carried everywhere.

/** Characters to escapeChar: astral (as surrogate pairs or lone halves), U+FFFE, U+FFFF, and C0 controls but tab/LF/CR. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the codec's job is to find control characters.
const UNSAFE = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/g;

const escapeChar = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A JSON body that every SQS implementation accepts; `decodeQueueBody` gives the value back unchanged. */
export function encodeQueueBody(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('queue body must be JSON-serialisable');
  // Matching is per UTF-16 unit (no `u` flag), so a pair becomes two escapes.
  return json.replace(UNSAFE, escapeChar);
}

export function decodeQueueBody<T>(body: string): T {
  return JSON.parse(body) as T;
}

/**
 * Free text for places that are not JSON (message attributes, e.g. an error message as a reason): every
 * character SQS cannot take becomes a `\uXXXX` escapeChar. Readable, not meant to be decoded.
 */
export function queueSafeText(text: string): string {
  return text.replace(UNSAFE, escapeChar);
}

/** Whether SQS would accept this text as it is. */
export function isQueueSafe(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd)) continue;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return false;
  }
  return true;
}
