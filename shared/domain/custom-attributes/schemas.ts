import * as v from 'valibot';
import { Text } from '../schemas.ts';
import { ATTRIBUTE_MODELS, DISPLAY_TYPES } from '#shared/model/custom-attributes.ts';

/** A Rails enum: its name, or its integer (as a number or a digit string, which form clients send). */
export const enumOf = <T extends readonly string[]>(names: T, what: string) =>
  v.pipe(
    v.union([v.string(), v.number()], `must be one of ${names.join(', ')}`),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const raw = dataset.value;
      const asIndex = typeof raw === 'number' ? raw : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
      const name = asIndex !== undefined ? names[asIndex] : names.find((n) => n === String(raw).trim());
      if (name === undefined) {
        addIssue({ message: `is not a valid ${what} (one of ${names.join(', ')} or 0-${names.length - 1})` });
        return NEVER;
      }
      return name as T[number];
    }),
  );

export const AttributeModelSchema = enumOf(ATTRIBUTE_MODELS, 'attribute model');

/** `GET …/custom_attribute_definitions?attribute_model=`: which model's definitions. */
export const CustomAttributeDefinitionQuery = v.object({ attribute_model: v.optional(AttributeModelSchema) });

// Letters, digits, `_`, `.` and `-` (Chatwoot's format), trimmed.
const Key = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.minLength(1),
  v.maxLength(255),
  v.regex(/^[\p{L}\p{N}_.-]+$/u, 'may only contain letters, numbers, underscores, dots and hyphens'),
);

const DisplayName = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1), v.maxLength(255));

const Values = v.pipe(
  v.array(
    v.pipe(v.union([v.string(), v.number()], 'must be strings'), v.transform(String), v.maxLength(255)),
    'must be an array of strings',
  ),
  v.maxLength(1000),
);

const fields = {
  attribute_description: v.optional(v.nullable(Text(20000))),
  regex_pattern: v.optional(
    v.nullable(
      v.pipe(
        Text(255),
        v.check((s) => {
          try {
            new RegExp(s, 'u');
            return true;
          } catch {
            return false;
          }
        }, 'is not a valid regular expression'),
      ),
    ),
  ),
  regex_cue: v.optional(v.nullable(Text(255))),
  attribute_values: v.optional(v.nullable(Values)),
};

export const NewAttributeDefinitionSchema = v.object({
  attribute_display_name: DisplayName,
  attribute_key: Key,
  attribute_model: v.optional(AttributeModelSchema),
  attribute_display_type: v.optional(enumOf(DISPLAY_TYPES, 'display type')),
  ...fields,
});

export const AttributeDefinitionUpdateSchema = v.object({
  attribute_display_name: v.optional(DisplayName),
  attribute_key: v.optional(Key),
  attribute_model: v.optional(AttributeModelSchema),
  attribute_display_type: v.optional(enumOf(DISPLAY_TYPES, 'display type')),
  ...fields,
});

export type NewAttributeDefinition = v.InferOutput<typeof NewAttributeDefinitionSchema>;
export type AttributeDefinitionUpdate = v.InferOutput<typeof AttributeDefinitionUpdateSchema>;
