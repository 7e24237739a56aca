import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { scanAll, type Item } from '../../support/table.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { resetConfig } from '#shared/config.ts';
import { isSealed, readKeyMaterial, reloadKeyring, seal, sealedVersion } from '#shared/crypto/tokens.ts';
import { resealAll, rotateKey } from '#shared/db/reseal.ts';
import { getHook } from '#shared/db/repositories/integration-hooks.ts';

/** Every sealed string anywhere in the table, with the key version it names. */
function sealedValues(items: Item[]): { pk: unknown; version: number | undefined }[] {
  const out: { pk: unknown; version: number | undefined }[] = [];
  const walk = (pk: unknown, v: unknown) => {
    if (typeof v === 'string' && isSealed(v)) out.push({ pk, version: sealedVersion(v) });
    else if (v && typeof v === 'object' && !Array.isArray(v)) for (const x of Object.values(v)) walk(pk, x);
  };
  for (const i of items) walk(i.pk, i);
  return out;
}

const rawGet = async (key: { pk: string; sk: string }) =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item!;

describe('secrets sealed at rest, migration and key rotation (DynamoDB Local)', () => {
  let s: SeededAccount;
  let keyEnv: string | undefined;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    // The shared runtime's key comes from TOKEN_KEY; rotation needs a place to store versions: a key file.
    keyEnv = process.env.TOKEN_KEY;
    const file = join(mkdtempSync(join(tmpdir(), 'keys-')), 'token.key');
    writeFileSync(file, await readKeyMaterial(), { mode: 0o600 });
    process.env.TOKEN_KEY_FILE = file;
    resetConfig();
    reloadKeyring();
  });
  afterAll(async () => {
    // Later files of this worker keep every version (JSON in TOKEN_KEY), so what was re-sealed still opens.
    process.env.TOKEN_KEY = await readKeyMaterial();
    delete process.env.TOKEN_KEY_FILE;
    if (!keyEnv) delete process.env.TOKEN_KEY;
    resetConfig();
    reloadKeyring();
  });

  it('seals webhook secrets and inbox HMAC tokens, migrates clear ones, rotates, and re-seals everything', async () => {
    // New writes are sealed; the API still shows the secret where Chatwoot does.
    const hook = await s.admin.api.post(`${s.base}/webhooks`, { url: `https://hooks.example.com/${unique('h')}` });
    expect(hook.status).toBe(200);
    const hookItem = await rawGet(keys.webhook(s.accountId, hook.body.id) as { pk: string; sk: string });
    expect(isSealed(String(hookItem.secret))).toBe(true);
    expect(JSON.stringify(hookItem)).not.toContain(hook.body.secret);

    const inbox = await s.admin.api.post(`${s.base}/inboxes`, {
      name: 'api',
      channel: { type: 'api', webhook_url: 'https://cb.example.com/x' },
    });
    expect(inbox.status).toBe(200);
    expect(typeof inbox.body.hmac_token).toBe('string');
    const inboxItem = await rawGet(keys.inbox(s.accountId, inbox.body.id) as { pk: string; sk: string });
    expect(isSealed(String(inboxItem.hmac_token))).toBe(true);
    expect(JSON.stringify(inboxItem)).not.toContain(inbox.body.hmac_token);

    // A webhook stored before sealing existed (secret in clear), and a value in the first sealed format.
    const legacyId = hook.body.id + 100000;
    const legacySecret = `whsec_${'A'.repeat(43)}=`;
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...hookItem,
          ...keys.webhook(s.accountId, legacyId),
          id: legacyId,
          url: `https://legacy.example.com/${unique('l')}`,
          secret: legacySecret,
        },
      }),
    );
    const v1Item = {
      pk: `LEGACYTEST#${unique('v')}`,
      sk: 'X',
      type: 'test',
      sealed_token: (await seal('first-format')).replace(/^k1\./, 'v1.'),
    };
    await db().send(new PutCommand({ TableName: tableName(), Item: v1Item }));

    // Readers take both forms before the migration has run.
    const listed = async () => (await s.admin.api.get(`${s.base}/webhooks`)).body.payload.webhooks as { id: number; secret: string }[];
    const secretOf = async (id: number) => (await listed()).find((w) => w.id === id)?.secret;
    expect(await secretOf(legacyId)).toBe(legacySecret);
    expect(await secretOf(hook.body.id)).toBe(hook.body.secret);

    // The migration seals what was in clear.
    const migrated = await resealAll();
    expect(migrated.complete).toBe(true);
    expect(isSealed(String((await rawGet(keys.webhook(s.accountId, legacyId) as { pk: string; sk: string })).secret))).toBe(true);
    expect(await secretOf(legacyId)).toBe(legacySecret);

    // Rotation: a new current version; everything sealed before still opens.
    const version = await rotateKey();
    expect(version).toBe(2);
    expect(await secretOf(hook.body.id)).toBe(hook.body.secret);
    const shown = await s.admin.api.get(`${s.base}/inboxes/${inbox.body.id}`);
    expect(shown.body.hmac_token).toBe(inbox.body.hmac_token);
    expect(sealedValues(await scanAll()).some((v) => v.version === 1)).toBe(true);

    // The re-seal is resumable: a bounded run stops part way, the next one finishes from its checkpoint.
    const partial = await resealAll({ pageSize: 5, maxPages: 1 });
    expect(partial).toMatchObject({ version: 2, complete: false, scanned: 5 });
    // Large pages: the table holds every earlier file's items in the full suite, and each page writes a checkpoint.
    const done = await resealAll({ pageSize: 1000 });
    expect(done.complete).toBe(true);
    expect(done.scanned).toBeGreaterThan(partial.scanned);
    // (The scanned count is not compared with the table's size: the runtime's pipeline keeps writing and
    // deleting items of earlier files meanwhile. What must hold is below: every sealed value names the new key.)
    const items = await scanAll();

    // After the re-seal nothing names the old version, and everything still reads the same.
    const sealed = sealedValues(items);
    expect(sealed.length).toBeGreaterThan(3);
    expect(sealed.filter((v) => v.version !== 2)).toEqual([]);
    expect(await secretOf(hook.body.id)).toBe(hook.body.secret);
    expect(await secretOf(legacyId)).toBe(legacySecret);
    expect((await s.admin.api.get(`${s.base}/inboxes/${inbox.body.id}`)).body.hmac_token).toBe(inbox.body.hmac_token);
    // Access tokens' sealed copies were re-sealed too: the profile still shows the caller's token.
    const profile = await s.admin.api.get('/api/v1/profile');
    expect(profile.status).toBe(200);
    expect(profile.body.access_token).toBe(s.admin.token);
    // The migration and the re-seal scan the whole table (four scans here), which in the full suite holds every
    // earlier file's items: its time grows with the suite, not with this test, hence a budget of its own.
  }, 120_000);

  it('seals integration hooks’ API keys and service-account credentials, and migrates ones stored in clear', async () => {
    const apiKey = `sk-${unique('key')}`;
    const credentials = {
      type: 'service_account',
      project_id: 'p-1',
      private_key: `-----BEGIN PRIVATE KEY-----\n${unique('pk')}\n-----END PRIVATE KEY-----\n`,
    };
    const openai = await s.admin.api.post(`${s.base}/integrations/hooks`, { app_id: 'openai', settings: { api_key: apiKey } });
    expect(openai.status).toBe(200);
    const translate = await s.admin.api.post(`${s.base}/integrations/hooks`, {
      app_id: 'google_translate',
      settings: { project_id: 'p-1', credentials },
    });
    expect(translate.status).toBe(200);
    expect(translate.body.settings).toEqual({ project_id: 'p-1' });

    const rawOpenai = await rawGet(keys.integrationHook(s.accountId, openai.body.id) as { pk: string; sk: string });
    const rawTranslate = await rawGet(keys.integrationHook(s.accountId, translate.body.id) as { pk: string; sk: string });
    expect(isSealed(String((rawOpenai.settings as Item).api_key))).toBe(true);
    expect(isSealed(String((rawTranslate.settings as Item).credentials))).toBe(true);
    expect((rawTranslate.settings as Item).project_id).toBe('p-1');
    expect(JSON.stringify([rawOpenai, rawTranslate])).not.toContain(apiKey);
    expect(JSON.stringify(rawTranslate)).not.toContain('PRIVATE KEY');
    // The service reads them back as they were given.
    expect((await getHook(s.accountId, openai.body.id))!.settings).toEqual({ api_key: apiKey });
    expect((await getHook(s.accountId, translate.body.id))!.settings).toEqual({ project_id: 'p-1', credentials });

    // A hook stored before sealing existed: read as it is, then sealed by the migration.
    const legacyId = translate.body.id + 100000;
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...rawTranslate,
          ...keys.integrationHook(s.accountId, legacyId),
          id: legacyId,
          settings: { project_id: 'p-1', credentials },
        },
      }),
    );
    expect((await getHook(s.accountId, legacyId))!.settings).toEqual({ project_id: 'p-1', credentials });
    expect((await resealAll()).complete).toBe(true);
    const migrated = await rawGet(keys.integrationHook(s.accountId, legacyId) as { pk: string; sk: string });
    expect(isSealed(String((migrated.settings as Item).credentials))).toBe(true);
    expect((await getHook(s.accountId, legacyId))!.settings).toEqual({ project_id: 'p-1', credentials });
  });

  it('seals a Notion hook’s token (and an access_token kept in settings), never shows it, and migrates one stored in clear', async () => {
    const token = `secret_${unique('notion')}`;
    const settings = { token, access_token: `ntn_${unique('at')}`, workspace_name: 'Acme Docs', workspace_id: 'ws-1' };
    const notion = await s.admin.api.post(`${s.base}/integrations/hooks`, { app_id: 'notion', settings });
    expect(notion.status).toBe(200);
    // Chatwoot shows none of a Notion hook's settings (its token is not even among them).
    expect(notion.body.settings).toEqual({});
    const listed = await s.admin.api.get(`${s.base}/integrations/apps`);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(token);
    expect(listed.text).not.toContain(settings.access_token);

    const raw = await rawGet(keys.integrationHook(s.accountId, notion.body.id) as { pk: string; sk: string });
    expect(isSealed(String((raw.settings as Item).token))).toBe(true);
    expect(isSealed(String((raw.settings as Item).access_token))).toBe(true);
    expect((raw.settings as Item).workspace_name).toBe('Acme Docs');
    expect(JSON.stringify(raw)).not.toContain(token);
    expect(JSON.stringify(raw)).not.toContain(settings.access_token);
    expect((await getHook(s.accountId, notion.body.id))!.settings).toEqual(settings);

    // A Notion hook stored before its token was sealed: read as it is, then sealed by the migration.
    const legacyId = notion.body.id + 100000;
    await db().send(
      new PutCommand({ TableName: tableName(), Item: { ...raw, ...keys.integrationHook(s.accountId, legacyId), id: legacyId, settings } }),
    );
    expect((await getHook(s.accountId, legacyId))!.settings).toEqual(settings);
    expect((await resealAll()).complete).toBe(true);
    const migrated = await rawGet(keys.integrationHook(s.accountId, legacyId) as { pk: string; sk: string });
    expect(isSealed(String((migrated.settings as Item).token))).toBe(true);
    expect(isSealed(String((migrated.settings as Item).access_token))).toBe(true);
    expect(JSON.stringify(migrated)).not.toContain(token);
    expect((await getHook(s.accountId, legacyId))!.settings).toEqual(settings);
  });
});
