import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/custom-attributes.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import { STANDARD_ATTRIBUTES, type AttributeDefinitionRecord, type AttributeModel } from '#shared/model/custom-attributes.ts';
import type { AttributeDefinitionUpdate, NewAttributeDefinition } from './schemas.ts';
import { attributeDefinitionJson } from './view.ts';

const iso = () => new Date().toISOString();

async function requireDefinition(accountId: number, id: number, consistent = false) {
  const d = await repo.getAttributeDefinition(accountId, id, consistent);
  if (!d) throw notFound('Custom attribute definition');
  return d;
}

/** All definitions, or those of one model (`?attribute_model=`), as a bare array like Chatwoot's index. */
export async function listAttributeDefinitions(accountId: number, model: AttributeModel | undefined) {
  const all = await repo.listAttributeDefinitions(accountId);
  return all.filter((d) => !model || d.attribute_model === model).map(attributeDefinitionJson);
}

export async function showAttributeDefinition(accountId: number, id: number) {
  return attributeDefinitionJson(await requireDefinition(accountId, id));
}

export async function createAttributeDefinition(accountId: number, input: NewAttributeDefinition) {
  const model = input.attribute_model ?? 'conversation_attribute';
  // Only on create, as Chatwoot: a key that shadows a standard attribute would make filters ambiguous.
  if (STANDARD_ATTRIBUTES[model].includes(input.attribute_key)) {
    throw invalidField('attribute_key', 'conflicts with a standard attribute', 'conflict');
  }
  const t = iso();
  const d: AttributeDefinitionRecord = {
    id: await nextId('custom_attribute_definition'),
    account_id: accountId,
    attribute_display_name: input.attribute_display_name,
    attribute_display_type: input.attribute_display_type ?? 'text',
    attribute_description: input.attribute_description ?? null,
    attribute_key: input.attribute_key,
    attribute_model: model,
    regex_pattern: input.regex_pattern || null,
    regex_cue: input.regex_cue || null,
    attribute_values: input.attribute_values ?? [],
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveAttributeDefinition(undefined, d);
  return attributeDefinitionJson(d);
}

export async function updateAttributeDefinition(accountId: number, id: number, input: AttributeDefinitionUpdate) {
  return retryStale(async (consistent) => {
    const before = await requireDefinition(accountId, id, consistent);
    const pick = <K extends keyof AttributeDefinitionUpdate>(k: K, current: unknown) => (input[k] !== undefined ? input[k] : current);
    const after: AttributeDefinitionRecord = {
      ...before,
      attribute_display_name: input.attribute_display_name ?? before.attribute_display_name,
      attribute_display_type: input.attribute_display_type ?? before.attribute_display_type,
      attribute_key: input.attribute_key ?? before.attribute_key,
      attribute_model: input.attribute_model ?? before.attribute_model,
      attribute_description: pick('attribute_description', before.attribute_description) as string | null,
      regex_pattern: (pick('regex_pattern', before.regex_pattern) as string | null) || null,
      regex_cue: (pick('regex_cue', before.regex_cue) as string | null) || null,
      attribute_values: input.attribute_values === undefined ? before.attribute_values : (input.attribute_values ?? []),
      updated_at: iso(),
      version: before.version + 1,
    };
    await repo.saveAttributeDefinition(before, after);
    return attributeDefinitionJson(after);
  });
}

export async function deleteAttributeDefinition(accountId: number, id: number) {
  await retryStale(async (consistent) => repo.deleteAttributeDefinition(await requireDefinition(accountId, id, consistent)));
}
