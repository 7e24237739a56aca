import { describe, expect, it } from 'vitest';
import { ServiceError } from '#shared/errors.ts';
import { assertStorable, MAX_DEPTH, storableErrors, textProblem } from '#shared/http/text.ts';

describe('text rule', () => {
  it('accepts every valid text, whatever a queue can carry', () => {
    for (const ok of [
      'plain',
      'thanks 👍',
      '\u{10ffff}\u{1d11e}',
      '\ufffe\uffff',
      '\u200f\u202eשלום',
      '\u0001\u001f\u007f',
      '\ufeff',
      '',
    ]) {
      expect(textProblem(ok), JSON.stringify(ok)).toBeUndefined();
    }
  });

  it('refuses NUL and unpaired surrogates anywhere in the text', () => {
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    for (const bad of ['\ud800', 'a\ud83d', '\udc4d', 'x\udc4d\ud83d', '👍\ud83d'])
      expect(textProblem(bad), JSON.stringify(bad)).toMatch(/surrogate/);
  });

  it('names every offending field by its dotted path, keys included', () => {
    const errors = storableErrors({
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

  it('refuses numbers DynamoDB cannot store, nesting past its depth and empty names below the top level', () => {
    const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });
    expect(
      storableErrors({
        ok: [0, -1.5, 9007199254740991, -9007199254740991, 1e-100, 0.1],
        big: 1e21,
        tiny: 1e-200,
        infinite: JSON.parse('1e400'),
        custom_attributes: { n: 9007199254740992, '': 1, fine: { '': 'x' } },
        nested: deep(MAX_DEPTH),
        '': 'a top-level field name is never stored',
      }),
    ).toEqual([
      { field: 'big', message: expect.stringMatching(/out of range/), code: 'invalid' },
      { field: 'tiny', message: expect.stringMatching(/out of range/), code: 'invalid' },
      { field: 'infinite', message: expect.stringMatching(/out of range/), code: 'invalid' },
      { field: 'custom_attributes.n', message: expect.stringMatching(/out of range/), code: 'invalid' },
      { field: 'custom_attributes', message: 'has a field with an empty name', code: 'invalid' },
      { field: 'custom_attributes.fine', message: 'has a field with an empty name', code: 'invalid' },
      { field: `nested${'.a'.repeat(MAX_DEPTH - 1)}`, message: expect.stringMatching(/nested too deeply/), code: 'invalid' },
    ]);
    // As deep as allowed: the body and MAX_DEPTH - 1 levels of objects below it.
    expect(storableErrors({ nested: deep(MAX_DEPTH - 1) })).toEqual([]);
  });

  it('skips values that are not text fields (uploaded files)', () => {
    expect(storableErrors({ attachments: [Buffer.from([0, 0xd8])], file: new Uint8Array([0]) })).toEqual([]);
  });

  it('throws the 422 error body', () => {
    try {
      assertStorable({ content: '\u0000' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).kind).toBe('invalid');
      expect((err as ServiceError).body.errors[0]).toMatchObject({ field: 'content', code: 'invalid' });
    }
  });
});
