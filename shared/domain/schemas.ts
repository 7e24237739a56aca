import * as v from 'valibot';

// Building blocks shared by the areas' schemas. Booleans and integers also accept the string forms
// form-encoded clients send ("true", "1"), as Rails does.

export const Text = (max = 255) => v.pipe(v.string('must be a string'), v.trim(), v.maxLength(max));
export const RequiredText = (max = 255) => v.pipe(v.string('must be a string'), v.trim(), v.minLength(1), v.maxLength(max));

export const Email = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(255),
  v.email('is not a valid email address'),
);

export const HttpUrl = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.maxLength(2048),
  v.check((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an http or https URL'),
);

export const Bool = v.union(
  [
    v.boolean(),
    v.pipe(
      v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
      v.transform((s) => s === 'true' || s === '1'),
    ),
  ],
  'must be true or false',
);

export const Id = v.union(
  [
    v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(1, 'must be positive')),
    v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be an integer'), v.transform(Number), v.minValue(1, 'must be positive')),
  ],
  'must be an integer',
);

/**
 * The most JSON one free-form field (custom and additional attributes, settings, bot configs, filter
 * queries, content attributes) holds: with the record's other fields it stays far below DynamoDB's 400 KB
 * item, and the events that carry it below SQS's 256 KB message.
 */
export const MAX_JSON_BYTES = 16 * 1024;

/** A value whose JSON is at most `max` bytes: a 'max_bytes' issue (422 'too_long') beyond. */
export function maxJsonBytes<T>(max = MAX_JSON_BYTES): v.BaseValidation<T, T, v.BaseIssue<T>> {
  return {
    kind: 'validation',
    type: 'max_bytes',
    reference: maxJsonBytes,
    async: false,
    expects: `<=${max}`,
    requirement: max,
    message: undefined,
    '~run'(dataset, config) {
      if (dataset.typed) {
        const size = Buffer.byteLength(JSON.stringify(dataset.value) ?? '');
        if (size > max) v._addIssue(this, 'bytes', dataset, config, { received: `${size}` });
      }
      return dataset;
    },
  } as v.BaseValidation<T, T, v.BaseIssue<T>> & { requirement: number };
}

/** Any JSON value of at most `max` bytes. */
export const JsonValue = (max = MAX_JSON_BYTES) => v.pipe(v.unknown(), maxJsonBytes<unknown>(max));

export const JsonObject = v.pipe(
  v.union(
    [
      v.pipe(
        v.record(v.string(), v.unknown()),
        v.check((o) => !Array.isArray(o), 'must be an object'),
      ),
      // Multipart and form clients send objects as JSON strings.
      v.pipe(
        v.string(),
        v.rawTransform(({ dataset, addIssue, NEVER }) => {
          try {
            const parsed = JSON.parse(dataset.value);
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
          } catch {
            /* reported below */
          }
          addIssue({ message: 'must be an object' });
          return NEVER;
        }),
      ),
    ],
    'must be an object',
  ),
  maxJsonBytes<Record<string, unknown>>(),
);

export const nullable = <S extends v.GenericSchema>(s: S) => v.nullable(s);

/** An array, or its JSON (multipart clients send every value as a string). */
export const JsonArray = <S extends v.GenericSchema>(item: S) =>
  v.pipe(v.union([v.array(v.unknown()), v.pipe(v.string(), v.parseJson(), v.array(v.unknown()))], 'must be an array'), v.array(item));
