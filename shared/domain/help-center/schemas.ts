import * as v from 'valibot';
import { Id, Text } from '../schemas.ts';

// The help center's bodies, as Chatwoot's controllers permit them (wrapped under `portal`, `category`,
// `article`, or flat as the n8n nodes send them: the handlers' root keys merge both). Each kind's bodies are a file of
// their own (portal-, category-, article-schemas.ts), so a route carries only the schemas it validates with
// (docs/cost.md#cold-start); this one holds the pieces they share.

/** What a slug may be: it is a path segment of the public pages. */
export const Slug = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.minLength(1),
  v.maxLength(255),
  v.regex(/^[\p{L}\p{N}][\p{L}\p{N}._~-]*$/u, 'may hold only letters, digits, ".", "_", "~" and "-"'),
);

/** A locale code as Chatwoot's (`en`, `pt_BR`, `zh-CN`). */
export const Locale = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.regex(/^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})?$/, 'is not a locale code'),
);

/** Blank text is no value (Chatwoot's normalize_empty_string_to_nil). */
export const OptionalText = (max: number) =>
  v.optional(
    v.nullable(
      v.pipe(
        Text(max),
        v.transform((s) => s || null),
      ),
    ),
  );

/** An id, or none: null, or the empty string an n8n options field sends. */
export const OptionalId = v.optional(
  v.nullable(
    v.union(
      [
        v.pipe(
          v.literal(''),
          v.transform(() => null),
        ),
        Id,
      ],
      'must be an integer',
    ),
  ),
);

export const Position = v.optional(
  v.nullable(
    v.union(
      [
        v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(-2147483648), v.maxValue(2147483647)),
        v.pipe(v.string(), v.regex(/^-?\d{1,9}$/, 'must be an integer'), v.transform(Number)),
      ],
      'must be an integer',
    ),
  ),
);

/** `POST …/reorder`: `{positions_hash: {"<id>": <position>}}`. */
export const ReorderSchema = v.object({
  positions_hash: v.pipe(
    v.record(
      v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'keys must be ids')),
      v.union([v.pipe(v.number(), v.integer()), v.pipe(v.string(), v.regex(/^-?\d{1,9}$/), v.transform(Number))], 'must be an integer'),
    ),
    v.check((o) => Object.keys(o).length <= 500, 'at most 500 positions at once'),
  ),
});

export type Reorder = v.InferOutput<typeof ReorderSchema>;
