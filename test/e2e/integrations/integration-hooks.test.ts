import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { newInbox, ok } from '../conversations/fixtures.ts';
import { sdk, sdkError } from './sdk.ts';

const appOf = (apps: { id: string }[], id: string) => apps.find((a) => a.id === id) as any;

describe('integration apps and hooks (n8n integration node, @figuro/chatwoot-sdk)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
  });

  it('lists the apps, creates hooks (n8n body), shows them under their app, updates and deletes them', async () => {
    const inbox = await newInbox(s);
    const before = await s.agent.api.get(`${s.base}/integrations/apps`);
    expect(before.status).toBe(200);
    expect(before.body.payload.map((a: { id: string }) => a.id)).toEqual(
      expect.arrayContaining(['webhook', 'openai', 'dialogflow', 'google_translate', 'slack']),
    );
    for (const app of before.body.payload) {
      expect(app).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          name: expect.any(String),
          description: expect.any(String),
          enabled: false,
          hooks: [],
        }),
      );
    }

    // n8n: app_id, inbox_id, settings parsed from JSON.
    const created = await s.admin.api.post(`${s.base}/integrations/hooks`, {
      app_id: 'dialogflow',
      inbox_id: inbox.id,
      settings: { project_id: 'bot-123', credentials: { type: 'service_account' }, region: 'global' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      app_id: 'dialogflow',
      status: true,
      inbox: { id: inbox.id, name: inbox.name },
      account_id: s.accountId,
      hook_type: 'inbox',
      // Credentials are never shown back.
      settings: { project_id: 'bot-123', region: 'global' },
      reference_id: null,
    });
    // The SDK sends inbox_id as a string; an account app takes no inbox.
    const openai = await sdk(base, s.admin.token).integrations.create({
      accountId: s.accountId,
      data: { app_id: 'openai', settings: { api_key: 'sk-test' } },
    });
    expect(openai).toMatchObject({ app_id: 'openai', hook_type: 'account', inbox: null, settings: {} });
    const second = await sdk(base, s.admin.token).integrations.create({
      accountId: s.accountId,
      data: { app_id: 'dialogflow', inbox_id: String(inbox.id), settings: { project_id: 'p2', credentials: {} } },
    });
    expect(second).toMatchObject({ app_id: 'dialogflow', inbox: { id: inbox.id } });

    const apps = (await s.admin.api.get(`${s.base}/integrations/apps`)).body.payload;
    const dialogflow = appOf(apps, 'dialogflow');
    expect(dialogflow).toMatchObject({ enabled: true, hook_type: 'inbox', allow_multiple_hooks: true });
    expect(dialogflow.hooks.map((h: { id: number }) => h.id)).toEqual([created.body.id, (second as unknown as { id: number }).id]);
    expect(appOf(apps, 'openai')).toMatchObject({
      enabled: true,
      hooks: [expect.objectContaining({ id: (openai as unknown as { id: number }).id })],
    });
    // Agents see the hooks, without settings.
    const agentView = appOf((await s.agent.api.get(`${s.base}/integrations/apps`)).body.payload, 'dialogflow');
    expect(agentView.hooks[0]).not.toHaveProperty('settings');
    expect(agentView).not.toHaveProperty('action');

    // n8n update: settings only; status too.
    const updated = await s.admin.api.patch(`${s.base}/integrations/hooks/${created.body.id}`, {
      settings: { project_id: 'bot-456', credentials: { a: 1 } },
    });
    expect(updated.body).toMatchObject({ id: created.body.id, settings: { project_id: 'bot-456' }, status: true });
    const disabled = await s.admin.api.patch(`${s.base}/integrations/hooks/${created.body.id}`, { hook: { status: 'disabled' } });
    expect(disabled.body).toMatchObject({ status: false, settings: { project_id: 'bot-456' } });

    const gone = await s.admin.api.delete(`${s.base}/integrations/hooks/${created.body.id}`);
    expect(gone.status).toBe(200);
    expectErrorBody(await s.admin.api.delete(`${s.base}/integrations/hooks/${created.body.id}`), 404);
    expect(appOf((await s.admin.api.get(`${s.base}/integrations/apps`)).body.payload, 'dialogflow').hooks).toHaveLength(1);

    // A webhook makes the webhook app enabled, as in Chatwoot.
    ok(await s.admin.api.post(`${s.base}/webhooks`, { url: 'https://hooks.example.com/x' }), 'webhook');
    expect(appOf((await s.admin.api.get(`${s.base}/integrations/apps`)).body.payload, 'webhook').enabled).toBe(true);
  });

  it('validates app, inbox, settings, and one hook for single-hook apps', async () => {
    const inbox = await newInbox(s);
    const post = (body: unknown) => s.admin.api.post(`${s.base}/integrations/hooks`, body);
    expect(fieldsOf(expectErrorBody(await post({ app_id: 'nope' }), 422))).toEqual({ app_id: 'invalid' });
    expect(fieldsOf(expectErrorBody(await post({ app_id: 'webhook' }), 422))).toEqual({ app_id: 'invalid' });
    expect(fieldsOf(expectErrorBody(await post({ app_id: 'dialogflow', settings: { project_id: 'x', credentials: {} } }), 422))).toEqual({
      inbox_id: 'required',
    });
    expect(fieldsOf(expectErrorBody(await post({ app_id: 'dialogflow', inbox_id: inbox.id, settings: { project_id: 1 } }), 422))).toEqual({
      'settings.project_id': 'invalid',
      'settings.credentials': 'required',
    });
    expect(
      fieldsOf(expectErrorBody(await post({ app_id: 'google_translate', settings: { project_id: 'x', credentials: {}, extra: 1 } }), 422)),
    ).toEqual({ 'settings.extra': 'unknown' });
    expect(fieldsOf(expectErrorBody(await post({ app_id: 'dyte', settings: { account_id: 'a' } }), 422))).toEqual({
      'settings.app_id': 'required',
      'settings.api_token': 'required',
    });
    const foreign = await newInbox(other);
    expectErrorBody(await post({ app_id: 'dialogflow', inbox_id: foreign.id, settings: { project_id: 'x', credentials: {} } }), 404);

    expect((await post({ app_id: 'google_translate', settings: { project_id: 'x', credentials: {} } })).status).toBe(200);
    expect(
      fieldsOf(expectErrorBody(await post({ app_id: 'google_translate', settings: { project_id: 'y', credentials: {} } }), 422)),
    ).toEqual({ app_id: 'taken' });
    // Another account may have its own.
    expect(
      (
        await other.admin.api.post(`${other.base}/integrations/hooks`, {
          app_id: 'google_translate',
          settings: { project_id: 'x', credentials: {} },
        })
      ).status,
    ).toBe(200);
  });

  it('lets only administrators write hooks, and only their account', async () => {
    const hook = ok(
      await s.admin.api.post(`${s.base}/integrations/hooks`, { app_id: 'slack', settings: { channel_name: 'support' } }),
      'hook',
    );
    for (const res of [
      await s.agent.api.post(`${s.base}/integrations/hooks`, { app_id: 'notion' }),
      await s.agent.api.patch(`${s.base}/integrations/hooks/${hook.id}`, { status: 'disabled' }),
      await s.agent.api.delete(`${s.base}/integrations/hooks/${hook.id}`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    expect((await sdkError(sdk(base, s.agent.token).integrations.delete({ accountId: s.accountId, hookId: hook.id }))).status).toBe(403);
    for (const res of [
      await other.admin.api.patch(`${other.base}/integrations/hooks/${hook.id}`, { status: 'disabled' }),
      await other.admin.api.delete(`${other.base}/integrations/hooks/${hook.id}`),
      await other.admin.api.get(`${s.base}/integrations/apps`),
    ]) {
      expectErrorBody(res, 404);
    }
    expect(appOf((await other.admin.api.get(`${other.base}/integrations/apps`)).body.payload, 'slack').hooks).toEqual([]);
    expect(appOf((await s.admin.api.get(`${s.base}/integrations/apps`)).body.payload, 'slack').hooks[0]).toMatchObject({
      id: hook.id,
      status: true,
    });
  });
});
