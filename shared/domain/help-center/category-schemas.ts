import * as v from 'valibot';
import { Id, RequiredText } from '../schemas.ts';
import { Locale, OptionalId, OptionalText, Position, Slug } from './schemas.ts';

// A category's bodies (POST and PATCH/PUT …/categories), as Chatwoot's categories controller permits them.

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

export type NewCategory = v.InferOutput<typeof NewCategorySchema>;
export type CategoryUpdate = v.InferOutput<typeof CategoryUpdateSchema>;
