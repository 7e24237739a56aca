import * as v from 'valibot';
import { Email, JsonObject, RequiredText, Text } from '../schemas.ts';

// Locales Chatwoot ships (config/initializers/languages.rb).
export const LOCALES = [
  'en',
  'ar',
  'az',
  'bg',
  'ca',
  'cs',
  'da',
  'de',
  'el',
  'es',
  'et',
  'fa',
  'fi',
  'fr',
  'he',
  'hi',
  'hr',
  'hu',
  'hy',
  'id',
  'is',
  'it',
  'ja',
  'ka',
  'ko',
  'lt',
  'lv',
  'ml',
  'ms',
  'ne',
  'nl',
  'no',
  'pl',
  'pt',
  'pt_BR',
  'ro',
  'ru',
  'sh',
  'sk',
  'sl',
  'sq',
  'sr',
  'sv',
  'ta',
  'th',
  'tl',
  'tr',
  'uk',
  'ur',
  'vi',
  'zh_CN',
  'zh_TW',
] as const;

const LIMIT_KEYS = ['inboxes', 'agents', 'captain_responses', 'captain_documents'] as const;

const Limits = v.pipe(
  JsonObject,
  v.check(
    (o) =>
      Object.entries(o).every(
        ([k, n]) => (LIMIT_KEYS as readonly string[]).includes(k) && typeof n === 'number' && Number.isInteger(n) && n >= 0,
      ),
    `may only hold non-negative integers for ${LIMIT_KEYS.join(', ')}`,
  ),
  v.transform((o) => o as Record<string, number>),
);

const Features = v.pipe(
  JsonObject,
  v.check(
    (o) => Object.values(o).every((b) => typeof b === 'boolean' || b === null || b === 'true' || b === 'false'),
    'values must be booleans',
  ),
);

const fields = {
  locale: v.optional(v.picklist(LOCALES, 'is not a supported locale')),
  domain: v.optional(v.nullable(Text(100))),
  support_email: v.optional(v.nullable(Email)),
  status: v.optional(v.picklist(['active', 'suspended'], 'must be active or suspended')),
  limits: v.optional(Limits),
  custom_attributes: v.optional(JsonObject),
  features: v.optional(Features),
};

export const NewAccountSchema = v.object({ name: RequiredText(255), ...fields });
export const AccountUpdateSchema = v.object({ name: v.optional(RequiredText(255)), ...fields });

export type NewAccount = v.InferOutput<typeof NewAccountSchema>;
export type AccountUpdate = v.InferOutput<typeof AccountUpdateSchema>;

/** What an account's administrators may change themselves (`PATCH /api/v1/accounts/{id}`). */
export const AccountSettingsSchema = v.object({
  name: v.optional(RequiredText(255)),
  locale: fields.locale,
  domain: fields.domain,
  support_email: fields.support_email,
  custom_attributes: fields.custom_attributes,
});
export type AccountSettings = v.InferOutput<typeof AccountSettingsSchema>;
