import * as v from 'valibot';
import { ARTICLE_STATUSES } from '#shared/model/help-center.ts';
import { Bool, HttpUrl, Id, JsonObject, RequiredText, Text } from '../schemas.ts';

/** An article's status by name, or by its Rails enum value (0 draft, 1 published, 2 archived), as Chatwoot casts it. */
const ArticleStatus = v.union(
  [
    v.picklist(ARTICLE_STATUSES),
    v.pipe(
      v.union([v.picklist([0, 1, 2]), v.picklist(['0', '1', '2'])]),
      v.transform((n) => ARTICLE_STATUSES[Number(n)]),
    ),
  ],
  `must be one of ${ARTICLE_STATUSES.join(', ')}`,
);

// The help center's bodies, as Chatwoot's controllers permit them (wrapped under `portal`, `category`,
// `article`, or flat as the n8n nodes send them: the handlers' root keys merge both).

/** What a slug may be: it is a path segment of the public pages. */
const Slug = v.pipe(
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
const OptionalText = (max: number) =>
  v.optional(
    v.nullable(
      v.pipe(
        Text(max),
        v.transform((s) => s || null),
      ),
    ),
  );

/** An id, or none: null, or the empty string an n8n options field sends. */
const OptionalId = v.optional(
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

const Position = v.optional(
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

/** A host name, from a bare host or a URL (Chatwoot keeps a URL's host). */
const CustomDomain = v.optional(
  v.nullable(
    v.pipe(
      Text(253),
      v.transform((s) => {
        if (!s) return null;
        const host = /^https?:\/\//i.test(s) ? (URL.canParse(s) ? new URL(s).hostname : s) : s;
        return host.toLowerCase();
      }),
      v.check(
        (h) => h === null || /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/.test(h),
        'is not a host name',
      ),
    ),
  ),
);

const Color = v.optional(
  v.nullable(
    v.pipe(
      Text(7),
      v.check((s) => s === '' || /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(s), 'must be a hex colour like #1f93ff'),
      v.transform((s) => s || null),
    ),
  ),
);

const PortalConfigInput = v.optional(
  v.object({
    allowed_locales: v.optional(v.pipe(v.array(Locale, 'must be an array of locale codes'), v.maxLength(50))),
    default_locale: v.optional(Locale),
  }),
);

const portalFields = {
  color: Color,
  custom_domain: CustomDomain,
  header_text: OptionalText(2000),
  homepage_link: v.optional(
    v.nullable(
      v.union(
        [
          v.pipe(
            v.literal(''),
            v.transform(() => null),
          ),
          HttpUrl,
        ],
        'must be an http or https URL',
      ),
    ),
  ),
  page_title: OptionalText(255),
  archived: v.optional(Bool),
  config: PortalConfigInput,
  // The logo: an upload's `blob_id` (POST …/upload), at the top level as Chatwoot's dashboard sends it, or in the
  // portal. Blank or null leaves the logo as it is (Rails' `present?`); `DELETE …/logo` removes it.
  blob_id: v.optional(
    v.nullable(
      v.union(
        [
          v.pipe(
            v.literal(''),
            v.transform(() => null),
          ),
          v.pipe(v.string(), v.maxLength(4096)),
          v.pipe(
            v.number(),
            v.transform((n) => String(n)),
          ),
        ],
        'must be the blob_id of an upload',
      ),
    ),
  ),
};

export const NewPortalSchema = v.object({ name: RequiredText(255), slug: Slug, ...portalFields });
export const PortalUpdateSchema = v.object({ name: v.optional(RequiredText(255)), slug: v.optional(Slug), ...portalFields });

const categoryFields = {
  description: OptionalText(10000),
  position: Position,
  locale: v.optional(Locale),
  parent_category_id: OptionalId,
  associated_category_id: OptionalId,
  related_category_ids: v.optional(v.pipe(v.array(Id, 'must be an array of ids'), v.maxLength(100))),
};

export const NewCategorySchema = v.object({ name: RequiredText(255), slug: Slug, ...categoryFields });
export const CategoryUpdateSchema = v.object({ name: v.optional(RequiredText(255)), slug: v.optional(Slug), ...categoryFields });

/** An article's Markdown: far below DynamoDB's 400 KB item even in 4-byte characters. */
export const MAX_ARTICLE_CONTENT = 60_000;

const articleFields = {
  slug: v.optional(
    v.nullable(
      v.union(
        [
          v.pipe(
            v.literal(''),
            v.transform(() => null),
          ),
          Slug,
        ],
        'is not a slug',
      ),
    ),
  ),
  description: OptionalText(10000),
  position: Position,
  category_id: OptionalId,
  associated_article_id: OptionalId,
  status: v.optional(ArticleStatus),
  locale: v.optional(Locale),
  meta: v.optional(v.nullable(JsonObject)),
};

export const NewArticleSchema = v.object({
  title: RequiredText(255),
  content: v.pipe(v.string('must be a string'), v.minLength(1), v.maxLength(MAX_ARTICLE_CONTENT)),
  author_id: Id,
  ...articleFields,
});
export const ArticleUpdateSchema = v.object({
  title: v.optional(RequiredText(255)),
  content: v.optional(v.pipe(v.string('must be a string'), v.minLength(1), v.maxLength(MAX_ARTICLE_CONTENT))),
  author_id: v.optional(Id),
  ...articleFields,
});

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

export type NewPortal = v.InferOutput<typeof NewPortalSchema>;
export type PortalUpdate = v.InferOutput<typeof PortalUpdateSchema>;
export type NewCategory = v.InferOutput<typeof NewCategorySchema>;
export type CategoryUpdate = v.InferOutput<typeof CategoryUpdateSchema>;
export type NewArticle = v.InferOutput<typeof NewArticleSchema>;
export type ArticleUpdate = v.InferOutput<typeof ArticleUpdateSchema>;
export type Reorder = v.InferOutput<typeof ReorderSchema>;
