import type { AttributeDefinitionRecord } from '#shared/model/custom-attributes.ts';

/** Chatwoot's `_custom_attribute_definition.json.jbuilder` (`default_value` is never set through the API). */
export const attributeDefinitionJson = (d: AttributeDefinitionRecord) => ({
  id: d.id,
  attribute_display_name: d.attribute_display_name,
  attribute_display_type: d.attribute_display_type,
  attribute_description: d.attribute_description,
  attribute_key: d.attribute_key,
  regex_pattern: d.regex_pattern,
  regex_cue: d.regex_cue,
  attribute_values: d.attribute_values,
  attribute_model: d.attribute_model,
  default_value: null,
  created_at: d.created_at,
  updated_at: d.updated_at,
});
