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
  [v.boolean(), v.pipe(v.picklist(['true', 'false', '1', '0'], 'must be true or false'), v.transform((s) => s === 'true' || s === '1'))],
  'must be true or false',
);

export const Id = v.union(
  [
    v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(1, 'must be positive')),
    v.pipe(v.string(), v.regex(/^\d{1,15}$/, 'must be an integer'), v.transform(Number)),
  ],
  'must be an integer',
);

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
);

export const nullable = <S extends v.GenericSchema>(s: S) => v.nullable(s);
