import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../shared/http/errors.ts';
import { assertStorableText, textErrors, textProblem } from '../../../shared/http/text.ts';

describe('text rule', () => {
  it('accepts every valid text, whatever a queue can carry', () => {
    for (const ok of ['plain', 'thanks 👍', '\u{10ffff}\u{1d11e}', '\ufffe\uffff', '\u200f\u202eשלום', '\u0001\u001f\u007f', '\ufeff', '']) {
      expect(textProblem(ok), JSON.stringify(ok)).toBeUndefined();
    }
  });

  it('refuses NUL and unpaired surrogates anywhere in the text', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    for (const bad of ['\ud800', 'a\ud83d', '\udc4d', 'x\udc4d\ud83d', '👍\ud83d']) expect(textProblem(bad), JSON.stringify(bad)).toMatch(/surrogate/);
  });

  it('names every offending field by its dotted path, keys included', () => {
    const errors = textErrors({
      content: 'fine 👍',
      name: 'nul\u0000',
      contact: { custom_attributes: { plan: 'ok', note: 'x\ud800', 'bad\u0000key': 1 } },
      tags: ['a', 'b\udfff'],
      count: 3,
      flag: null,
    });
    expect(errors).toEqual([
      { field: 'name', message: expect.stringMatching(/NUL/), code: 'invalid' },
      { field: 'contact.custom_attributes.note', message: expect.stringMatching(/surrogate/), code: 'invalid' },
      { field: 'contact.custom_attributes.bad\\u0000key', message: expect.stringMatching(/^name .*NUL/), code: 'invalid' },
      { field: 'tags[1]', message: expect.stringMatching(/surrogate/), code: 'invalid' },
    ]);
  });

  it('skips values that are not text fields (uploaded files)', () => {
    expect(textErrors({ attachments: [Buffer.from([0, 0xd8])], file: new Uint8Array([0]) })).toEqual([]);
  });

  it('throws the 422 error body', () => {
    try {
      assertStorableText({ content: '\u0000' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(422);
      expect((err as HttpError).body.errors[0]).toMatchObject({ field: 'content', code: 'invalid' });
    }
  });
});
