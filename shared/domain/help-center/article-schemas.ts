import * as v from 'valibot';
import { ARTICLE_STATUSES } from '#shared/model/help-center.ts';
import { Id, JsonObject, RequiredText } from '../schemas.ts';
import { Locale, OptionalId, OptionalText, Position, Slug } from './schemas.ts';

// An article's bodies (POST and PATCH/PUT …/articles), as Chatwoot's articles controller permits them.

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

export type NewArticle = v.InferOutput<typeof NewArticleSchema>;
export type ArticleUpdate = v.InferOutput<typeof ArticleUpdateSchema>;
