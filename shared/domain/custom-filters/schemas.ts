import * as v from 'valibot';
import { JsonObject, RequiredText } from '../schemas.ts';
import { FILTER_TYPES } from '#shared/model/custom-filters.ts';

const FilterTypeField = v.picklist(FILTER_TYPES, `must be one of ${FILTER_TYPES.join(', ')}`);

// `query` is stored as sent (the dashboard keeps `{"payload": [conditions]}` there).
export const NewCustomFilterSchema = v.object({
  name: RequiredText(255),
  filter_type: v.optional(FilterTypeField),
  query: v.optional(JsonObject),
});

export const CustomFilterUpdateSchema = v.object({
  name: v.optional(RequiredText(255)),
  filter_type: v.optional(FilterTypeField),
  query: v.optional(JsonObject),
});

export const CustomFilterListQuery = v.object({ filter_type: v.optional(FilterTypeField, 'conversation') });

export type NewCustomFilter = v.InferOutput<typeof NewCustomFilterSchema>;
export type CustomFilterUpdate = v.InferOutput<typeof CustomFilterUpdateSchema>;
