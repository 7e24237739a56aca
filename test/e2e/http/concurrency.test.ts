import { beforeAll, describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import { newPlatformApp, runtime, seedAccount, unique, type Res, type SeededAccount } from '../../support/runtime.ts';
import { newContact, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// Fifty clients changing one object at the same moment, as Chatwoot serves them: every one is answered
// 200 (never 409, never 5xx), and every acknowledged change is there afterwards.

const WRITERS = 50;
const P = '/platform/api/v1';

const all = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

function expectAllOk(results: Res[]) {
  const statuses = results.map((r) => r.status);
  const failures = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`);
  expect(failures, failures.slice(0, 3).join('\n')).toEqual([]);
  expect(statuses.every((s) => s === 200)).toBe(true);
}

/** The stored item's version: one per acknowledged write means none overwrote another. */
const versionOf = async (key: { pk: string; sk: string }) => (await getItem<{ version: number }>(key, true))?.version;

describe(`${WRITERS} concurrent writers on one object`, () => {
  let s: SeededAccount;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  }, 60_000);

  it('platform user: every custom-attribute merge lands, alongside concurrent name changes', async () => {
    const app = await newPlatformApp();
    const user = ok(
      await app.api.post(`${P}/users`, {
        name: 'Concurrent',
        email: `${unique('cc')}@example.com`,
        password: 'Passw0rd!',
        custom_attributes: { seed: 0 },
      }),
      'create user',
    );
    const results = await all(WRITERS, (i) =>
      app.api.patch(
        `${P}/users/${user.id}`,
        i % 10 === 0 ? { name: `Name ${i}`, custom_attributes: { [`k${i}`]: i } } : { custom_attributes: { [`k${i}`]: i } },
      ),
    );
    expectAllOk(results);
    for (const [i, r] of results.entries()) expect(r.body.custom_attributes[`k${i}`]).toBe(i);
    const after = ok(await app.api.get(`${P}/users/${user.id}`), 'show user');
    expect(after.custom_attributes).toEqual(Object.fromEntries([['seed', 0], ...Array.from({ length: WRITERS }, (_, i) => [`k${i}`, i])]));
    expect(Array.from({ length: 5 }, (_, i) => `Name ${i * 10}`)).toContain(after.name);
    expect(await versionOf(keys.user(user.id))).toBe(WRITERS);
  }, 120_000);

  it('platform user: concurrent email changes keep exactly one email claim, the user’s', async () => {
    const app = await newPlatformApp();
    const user = ok(
      await app.api.post(`${P}/users`, { name: 'Mailer', email: `${unique('m')}@example.com`, password: 'Passw0rd!' }),
      'create user',
    );
    const emails = Array.from({ length: 10 }, () => `${unique('mail')}@example.com`);
    expectAllOk(
      await all(emails.length, (i) => app.api.patch(`${P}/users/${user.id}`, { email: emails[i], custom_attributes: { [`e${i}`]: true } })),
    );
    const after = ok(await app.api.get(`${P}/users/${user.id}`), 'show user');
    expect(emails).toContain(after.email);
    expect(Object.keys(after.custom_attributes).sort()).toEqual(emails.map((_, i) => `e${i}`).sort());
    // Only the final email is claimed: every other one is free for a new user.
    for (const email of emails.filter((e) => e !== after.email)) {
      expect((await app.api.post(`${P}/users`, { name: 'Next', email, password: 'Passw0rd!' })).status).toBe(200);
    }
    await expect(
      (await newPlatformApp()).api.post(`${P}/users`, { name: 'Thief', email: after.email, password: 'Passw0rd!' }).then((r) => r.status),
    ).resolves.toBe(422);
  }, 120_000);

  it('contact: every custom-attribute merge lands', async () => {
    const contact = await newContact(s, { custom_attributes: { seed: 'x' } });
    const path = `${s.base}/contacts/${contact.id}`;
    const results = await all(WRITERS, (i) =>
      (i % 2 ? s.admin.api : s.agent.api).patch(path, { custom_attributes: { [`k${i}`]: `v${i}` } }),
    );
    expectAllOk(results);
    const after = ok(await s.admin.api.get(path), 'show contact').payload;
    expect(after.custom_attributes).toEqual(
      Object.fromEntries([['seed', 'x'], ...Array.from({ length: WRITERS }, (_, i) => [`k${i}`, `v${i}`])]),
    );
    expect(await versionOf(keys.contact(s.accountId, contact.id))).toBe(1 + WRITERS);
  }, 120_000);

  it('contact: concurrent edits of other fields (names, additional attributes, labels) all land', async () => {
    const contact = await newContact(s);
    const path = `${s.base}/contacts/${contact.id}`;
    const results = await all(WRITERS, (i) =>
      i % 5 === 4
        ? s.admin.api.post(`${path}/labels`, { labels: [`label-${i}`] })
        : s.admin.api.patch(path, { name: `Person ${i}`, additional_attributes: { [`a${i}`]: i }, custom_attributes: { [`c${i}`]: i } }),
    );
    expectAllOk(results);
    const after = ok(await s.admin.api.get(path), 'show contact').payload;
    const editors = Array.from({ length: WRITERS }, (_, i) => i).filter((i) => i % 5 !== 4);
    expect(editors.map((i) => `Person ${i}`)).toContain(after.name);
    for (const i of editors) {
      expect(after.additional_attributes[`a${i}`]).toBe(i);
      expect(after.custom_attributes[`c${i}`]).toBe(i);
    }
    const labels = ok(await s.admin.api.get(`${path}/labels`), 'labels').payload;
    expect(labels).toHaveLength(1);
    expect(Array.from({ length: WRITERS }, (_, i) => `label-${i}`)).toContain(labels[0]);
    expect(await versionOf(keys.contact(s.accountId, contact.id))).toBe(1 + WRITERS);
  }, 120_000);

  it('inbox: concurrent edits all answer 200 and each is its own version', async () => {
    const inbox = await newInbox(s);
    const path = `${s.base}/inboxes/${inbox.id}`;
    const results = await all(WRITERS, (i) =>
      s.admin.api.patch(path, i % 2 ? { name: `Inbox ${i}` } : { greeting_enabled: true, greeting_message: `Hello ${i}` }),
    );
    expectAllOk(results);
    const after = ok(await s.admin.api.get(path), 'show inbox');
    expect(Array.from({ length: WRITERS }, (_, i) => `Inbox ${i}`)).toContain(after.name);
    expect(Array.from({ length: WRITERS }, (_, i) => `Hello ${i}`)).toContain(after.greeting_message);
    expect(await versionOf(keys.inbox(s.accountId, inbox.id))).toBe(1 + WRITERS);
  }, 120_000);

  it('team: concurrent edits all answer 200 and each is its own version', async () => {
    const team = await newTeam(s);
    const path = `${s.base}/teams/${team.id}`;
    const results = await all(WRITERS, (i) => s.admin.api.patch(path, { description: `Team note ${i}`, allow_auto_assign: i % 2 === 0 }));
    expectAllOk(results);
    const after = ok(await s.admin.api.get(path), 'show team');
    const i = Number(String(after.description).replace('Team note ', ''));
    expect(after.allow_auto_assign).toBe(i % 2 === 0);
    expect(await versionOf(keys.team(s.accountId, team.id))).toBe(1 + WRITERS);
  }, 120_000);

  it('labels, webhooks, custom filters and automation rules: concurrent edits all answer 200', async () => {
    const label = ok(await s.admin.api.post(`${s.base}/labels`, { title: unique('lbl') }), 'label');
    const webhook = ok(
      await s.admin.api.post(`${s.base}/webhooks`, { url: `https://example.com/${unique('h')}`, subscriptions: ['message_created'] }),
      'webhook',
    );
    const filter = ok(
      await s.admin.api.post(`${s.base}/custom_filters`, {
        name: 'f',
        type: 'conversation',
        query: { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: null }] },
      }),
      'filter',
    );
    const rule = ok(
      await s.admin.api.post(`${s.base}/automation_rules`, {
        name: 'r',
        event_name: 'conversation_created',
        conditions: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: null }],
        actions: [{ action_name: 'add_label', action_params: ['x'] }],
      }),
      'rule',
    );
    const n = 25;
    const results = (
      await Promise.all([
        all(n, (i) => s.admin.api.patch(`${s.base}/labels/${label.id}`, { description: `d${i}` })),
        all(n, (i) =>
          s.admin.api.patch(`${s.base}/webhooks/${webhook.id}`, { subscriptions: i % 2 ? ['message_created'] : ['conversation_created'] }),
        ),
        all(n, (i) => s.admin.api.patch(`${s.base}/custom_filters/${filter.id}`, { name: `f${i}` })),
        all(n, (i) => s.admin.api.patch(`${s.base}/automation_rules/${rule.id}`, { name: `r${i}` })),
      ])
    ).flat();
    expectAllOk(results);
    expect(await versionOf(keys.label(s.accountId, label.id))).toBe(1 + n);
    expect(await versionOf(keys.automationRule(s.accountId, rule.id))).toBe(1 + n);
  }, 120_000);
});
