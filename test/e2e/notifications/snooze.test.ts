import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fieldsOf } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { newBot, newConversation, ok, world, type World } from '../conversations/fixtures.ts';

// POST notifications/{id}/snooze (Chatwoot's NotificationsController#snooze, the n8n node's call): a snoozed
// notification leaves the default list and counts until its time, and shows with includes[]=snoozed.

describe('notification snooze', { timeout: 120_000 }, () => {
  let w: World;
  const base = () => w.s.base;
  const list = async (q = '') => ok(await w.s.agent.api.get(`${base()}/notifications${q}`), 'list').data;
  const ids = (d: { payload: { id: number }[] }) => d.payload.map((n) => n.id);

  /** A fresh assignment notification for the agent. */
  const notification = async () => {
    const c = await newConversation(w.s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    ok(await w.s.admin.api.post(`${base()}/conversations/${c.id}/assignments`, { assignee_id: w.s.agent.id }), 'assign');
    return until(async () => (await list('?includes[]=read&includes[]=snoozed')).payload.find((n: any) => n.primary_actor_id === c.id));
  };

  beforeAll(async () => {
    w = await world();
  });

  it('takes a snoozed notification out of the default list and counts until its time; includes[]=snoozed shows it', async () => {
    const a = await notification();
    const b = await notification();
    const before = await list();
    expect(ids(before)).toEqual(expect.arrayContaining([a.id, b.id]));
    const unreadBefore = ok(await w.s.agent.api.get(`${base()}/notifications/unread_count`), 'count');

    const until1h = Math.floor(Date.now() / 1000) + 3600;
    const snoozed = await w.s.agent.api.post(`${base()}/notifications/${a.id}/snooze`, { snoozed_until: until1h });
    expect(snoozed.status).toBe(200);
    expect(snoozed.body).toMatchObject({ id: a.id, user_id: w.s.agent.id, snoozed_until: new Date(until1h * 1000).toISOString() });

    const after = await list();
    expect(ids(after)).not.toContain(a.id);
    expect(ids(after)).toContain(b.id);
    expect(after.meta.unread_count).toBe(before.meta.unread_count - 1);
    expect(after.meta.count).toBe(before.meta.count - 1);
    expect(ok(await w.s.agent.api.get(`${base()}/notifications/unread_count`), 'count')).toBe(unreadBefore - 1);

    const withSnoozed = await list('?includes[]=snoozed');
    const shown = withSnoozed.payload.find((n: any) => n.id === a.id);
    expect(shown.snoozed_until).toBe(new Date(until1h * 1000).toISOString());
    expect(withSnoozed.meta.unread_count).toBe(before.meta.unread_count);

    // Read and snoozed: out of includes[]=read too, unless snoozed is asked for as well.
    expect(ids(await list('?includes[]=read'))).not.toContain(a.id);
    expect(ids(await list('?includes[]=read&includes[]=snoozed'))).toContain(a.id);

    // A snooze whose time has come is over: back in the default list (a string of digits works too).
    const past = String(Math.floor(Date.now() / 1000) - 5);
    expect((await w.s.agent.api.post(`${base()}/notifications/${a.id}/snooze`, { snoozed_until: past })).status).toBe(200);
    expect(ids(await list())).toContain(a.id);
  });

  it('answers the notification unchanged without snoozed_until; 422 for a bad time; 404 for another user’s; 403 for a bot', async () => {
    const n = await notification();
    const same = await w.s.agent.api.post(`${base()}/notifications/${n.id}/snooze`, {});
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ id: n.id, snoozed_until: null });
    for (const bad of ['tomorrow', -5, 1.5, '2026-01-01']) {
      const res = expectErrorBody(await w.s.agent.api.post(`${base()}/notifications/${n.id}/snooze`, { snoozed_until: bad }), 422);
      expect(fieldsOf(res)).toHaveProperty('snoozed_until');
    }
    expectErrorBody(await w.s.admin.api.post(`${base()}/notifications/${n.id}/snooze`, { snoozed_until: 2000000000 }), 404);
    expectErrorBody(await w.s.agent.api.post(`${base()}/notifications/999999999/snooze`, { snoozed_until: 2000000000 }), 404);
    expectErrorBody(await (await newBot(w.s)).api.post(`${base()}/notifications/${n.id}/snooze`, { snoozed_until: 2000000000 }), 403);
    expect(ids(await list())).toContain(n.id);
  });
});
