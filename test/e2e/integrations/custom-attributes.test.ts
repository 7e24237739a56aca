import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { sdk, sdkError } from './sdk.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('custom attribute definitions (n8n customAttribute node, @figuro/chatwoot-sdk)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
  });

  it('creates with the n8n node body, lists by model, shows, updates and deletes', async () => {
    // n8n: attribute_model and display type by name, attribute_values split from a comma list.
    const created = await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
      attribute_display_name: 'Plan',
      attribute_key: 'plan',
      attribute_model: 'contact_attribute',
      attribute_display_type: 'list',
      attribute_description: 'Subscription plan',
      default_value: 'free',
      attribute_values: ['free', 'pro'],
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      attribute_display_name: 'Plan',
      attribute_display_type: 'list',
      attribute_description: 'Subscription plan',
      attribute_key: 'plan',
      regex_pattern: null,
      regex_cue: null,
      attribute_values: ['free', 'pro'],
      attribute_model: 'contact_attribute',
      // Chatwoot does not take default_value through the API.
      default_value: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });

    // The SDK sends the enums as integers (OpenAPI); a conversation attribute may reuse the key.
    const client = sdk(base, s.admin.token);
    const conv = await client.customAttributes.create({
      accountId: s.accountId,
      data: { attribute_display_name: 'Plan', attribute_key: 'plan', attribute_model: 0, attribute_display_type: 1 },
    });
    expect(conv).toMatchObject({
      attribute_model: 'conversation_attribute',
      attribute_display_type: 'number',
      attribute_values: [],
      attribute_description: null,
    });
    // Defaults: conversation attribute, text; Rails root key accepted.
    const plain = await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
      custom_attribute_definition: {
        attribute_display_name: ' Order ',
        attribute_key: ' order.id ',
        regex_pattern: '^\\d+$',
        regex_cue: 'digits',
      },
    });
    expect(plain.body).toMatchObject({
      attribute_display_name: 'Order',
      attribute_key: 'order.id',
      attribute_model: 'conversation_attribute',
      attribute_display_type: 'text',
      regex_pattern: '^\\d+$',
      regex_cue: 'digits',
    });

    const contactOnly = await s.agent.api.get(`${s.base}/custom_attribute_definitions?attribute_model=contact_attribute`);
    expect(contactOnly.status).toBe(200);
    expect(contactOnly.body.map((d: { id: number }) => d.id)).toEqual([created.body.id]);
    const byIndex = await client.customAttributes.list({ accountId: s.accountId, attributeModel: '0' });
    expect((byIndex as { id: number }[]).map((d) => d.id)).toEqual([conv.id, plain.body.id]);
    const all = await s.agent.api.get(`${s.base}/custom_attribute_definitions`);
    expect(all.body.map((d: { id: number }) => d.id)).toEqual([created.body.id, conv.id, plain.body.id]);

    const shown = await s.agent.api.get(`${s.base}/custom_attribute_definitions/${created.body.id}`);
    expect(shown.body).toEqual(created.body);

    // n8n update body.
    const updated = await s.admin.api.patch(`${s.base}/custom_attribute_definitions/${created.body.id}`, {
      attribute_display_name: 'Plan tier',
      attribute_description: 'Tier',
      attribute_values: ['free', 'pro', 'enterprise'],
    });
    expect(updated.body).toEqual({
      ...created.body,
      attribute_display_name: 'Plan tier',
      attribute_description: 'Tier',
      attribute_values: ['free', 'pro', 'enterprise'],
      updated_at: expect.stringMatching(ISO),
    });

    const gone = await s.admin.api.delete(`${s.base}/custom_attribute_definitions/${created.body.id}`);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/custom_attribute_definitions/${created.body.id}`), 404);
    // The key is free again for its model.
    expect(
      (
        await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
          attribute_display_name: 'Plan',
          attribute_key: 'plan',
          attribute_model: 1,
        })
      ).status,
    ).toBe(200);
  });

  it('keeps a key unique per model in the account (taken), refuses standard keys and bad enums', async () => {
    const key = unique('k').replace(/[^\w]/g, '_');
    const body = { attribute_display_name: 'X', attribute_key: key, attribute_model: 'contact_attribute' };
    expect((await s.admin.api.post(`${s.base}/custom_attribute_definitions`, body)).status).toBe(200);
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/custom_attribute_definitions`, { ...body, attribute_model: '1' }), 422)),
    ).toEqual({ attribute_key: 'taken' });
    // Another account may use the same key.
    expect((await other.admin.api.post(`${other.base}/custom_attribute_definitions`, body)).status).toBe(200);
    // Moving a definition onto a taken key is refused too, and leaves it unchanged.
    const second = await s.admin.api.post(`${s.base}/custom_attribute_definitions`, { ...body, attribute_key: `${key}_2` });
    expect(
      fieldsOf(
        expectErrorBody(await s.admin.api.patch(`${s.base}/custom_attribute_definitions/${second.body.id}`, { attribute_key: key }), 422),
      ),
    ).toEqual({ attribute_key: 'taken' });
    expect((await s.admin.api.get(`${s.base}/custom_attribute_definitions/${second.body.id}`)).body.attribute_key).toBe(`${key}_2`);

    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
            attribute_display_name: 'E',
            attribute_key: 'email',
            attribute_model: 'contact_attribute',
          }),
          422,
        ),
      ),
    ).toEqual({ attribute_key: 'conflict' });
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/custom_attribute_definitions`, { attribute_display_name: 'S', attribute_key: 'status' }),
          422,
        ),
      ),
    ).toEqual({ attribute_key: 'conflict' });
    expect(
      fieldsOf(
        expectErrorBody(
          await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
            attribute_key: 'has space',
            attribute_model: 'company',
            attribute_display_type: 9,
            regex_pattern: '(',
          }),
          422,
        ),
      ),
    ).toEqual({
      attribute_display_name: 'required',
      attribute_key: 'invalid',
      attribute_model: 'invalid',
      attribute_display_type: 'invalid',
      regex_pattern: 'invalid',
    });
    expect(fieldsOf(expectErrorBody(await s.agent.api.get(`${s.base}/custom_attribute_definitions?attribute_model=nope`), 422))).toEqual({
      attribute_model: 'invalid',
    });
  });

  it('lets agents read but not write, and hides other accounts', async () => {
    const def = (
      await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
        attribute_display_name: 'R',
        attribute_key: unique('r').replace(/[^\w]/g, '_'),
      })
    ).body;
    for (const res of [
      await s.agent.api.post(`${s.base}/custom_attribute_definitions`, { attribute_display_name: 'A', attribute_key: 'a' }),
      await s.agent.api.patch(`${s.base}/custom_attribute_definitions/${def.id}`, { attribute_display_name: 'B' }),
      await s.agent.api.delete(`${s.base}/custom_attribute_definitions/${def.id}`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    expect((await sdkError(sdk(base, s.agent.token).customAttributes.delete({ accountId: s.accountId, id: def.id }))).status).toBe(403);
    for (const res of [
      await other.admin.api.get(`${other.base}/custom_attribute_definitions/${def.id}`),
      await other.admin.api.patch(`${other.base}/custom_attribute_definitions/${def.id}`, { attribute_display_name: 'X' }),
      await other.admin.api.delete(`${other.base}/custom_attribute_definitions/${def.id}`),
      await other.admin.api.get(`${s.base}/custom_attribute_definitions`),
    ]) {
      expectErrorBody(res, 404);
    }
    expect(
      (await other.admin.api.get(`${other.base}/custom_attribute_definitions`)).body.some((d: { id: number }) => d.id === def.id),
    ).toBe(false);
  });
});
