import * as v from 'valibot';
import { Bool, Text } from '../schemas.ts';

// Chatwoot: letters, digits, `_` and `-` only (no spaces); stored lower-cased.
const Title = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.minLength(1),
  v.maxLength(255),
  v.regex(/^[\p{L}\p{N}_-]+$/u, 'may only contain letters, numbers, hyphens and underscores'),
  v.toLowerCase(),
);

const Color = v.pipe(v.string('must be a string'), v.trim(), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour like #1f93ff'));

const fields = {
  description: v.optional(v.nullable(Text(20000))),
  // Blank keeps the colour (the default on create); Chatwoot does not validate it.
  color: v.optional(v.nullable(Color)),
  show_on_sidebar: v.optional(Bool),
};

export const NewLabelSchema = v.object({ title: Title, ...fields });
export const LabelUpdateSchema = v.object({ title: v.optional(Title), ...fields });

export type NewLabel = v.InferOutput<typeof NewLabelSchema>;
export type LabelUpdate = v.InferOutput<typeof LabelUpdateSchema>;
