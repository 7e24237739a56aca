import type { CustomFilterRecord } from '#shared/model/custom-filters.ts';

/** Chatwoot's `_custom_filter.json.jbuilder`. */
export const customFilterJson = (f: CustomFilterRecord) => ({
  id: f.id,
  name: f.name,
  filter_type: f.filter_type,
  query: f.query,
  created_at: f.created_at,
  updated_at: f.updated_at,
});
