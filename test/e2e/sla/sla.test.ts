import { beforeAll, describe, expect, it } from 'vitest';
import { getAppliedSla } from '#shared/db/repositories/sla.ts';
import { callRecorder } from '../../support/calls.ts';
import { expectErrorBody, fieldsOf, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { addInboxMembers, newContact, newInbox, newTeam, ok } from '../conversations/fixtures.ts';

// SLA end to end (docs/sla.md): policies, applying one (the conversation's sla_policy_id, the automation action
// add_sla), a deadline of a few seconds missed on time (its wake-up, no later change of the conversation), the miss's
// notification, applied_slas with its metrics and CSV, and a reply in time that is a hit. applied_slas reads no
// conversation: the SLA stage keeps the fields it filters and shows on the applied SLA, as the conversation changes.

describe('SLA policies (Chatwoot SlaPoliciesController)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it('administrators create, update and delete policies; agents list and show them', async () => {
    const created = await s.admin.api.post(`${s.base}/sla_policies`, {
      sla_policy: {
        name: 'Gold',
        description: 'paying customers',
        first_response_time_threshold: 60,
        next_response_time_threshold: '120.5',
        resolution_time_threshold: 3600,
        only_during_business_hours: true,
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      payload: {
        id: expect.any(Number),
        name: 'Gold',
        description: 'paying customers',
        first_response_time_threshold: 60,
        next_response_time_threshold: 120.5,
        only_during_business_hours: true,
        resolution_time_threshold: 3600,
      },
    });
    const id = created.body.payload.id;
    // Defaults: no thresholds, not business hours only.
    const plain = await s.admin.api.post(`${s.base}/sla_policies`, { name: 'Plain' });
    expect(plain.body.payload).toEqual({
      id: expect.any(Number),
      name: 'Plain',
      description: null,
      first_response_time_threshold: null,
      next_response_time_threshold: null,
      only_during_business_hours: false,
      resolution_time_threshold: null,
    });

    const list = await s.agent.api.get(`${s.base}/sla_policies`);
    expect(list.status).toBe(200);
    expect(list.body.payload.map((p: { name: string }) => p.name)).toEqual(['Gold', 'Plain']);
    expect((await s.agent.api.get(`${s.base}/sla_policies/${id}`)).body).toEqual(created.body);

    const updated = await s.admin.api.patch(`${s.base}/sla_policies/${id}`, { name: 'Platinum', next_response_time_threshold: null });
    expect(updated.status).toBe(200);
    expect(updated.body.payload).toEqual({ ...created.body.payload, name: 'Platinum', next_response_time_threshold: null });
    const put = await s.admin.api.put(`${s.base}/sla_policies/${id}`, { only_during_business_hours: 'false' });
    expect(put.body.payload.only_during_business_hours).toBe(false);
    expect(put.body.payload.name).toBe('Platinum');

    // Another account does not see it.
    expectErrorBody(await other.admin.api.get(`${other.base}/sla_policies/${id}`), 404);
    expect((await other.admin.api.get(`${other.base}/sla_policies`)).body).toEqual({ payload: [] });

    const gone = await s.admin.api.delete(`${s.base}/sla_policies/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/sla_policies/${id}`), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/sla_policies/${id}`), 404);
  });

  it('agents may not write policies; bad input is a 422 and writes nothing', async () => {
    const p = await s.admin.api.post(`${s.base}/sla_policies`, { name: 'Silver', first_response_time_threshold: 10 });
    const id = p.body.payload.id;
    expect(expectErrorBody(await s.agent.api.post(`${s.base}/sla_policies`, { name: 'Mine' }), 403).errors[0].code).toBe('forbidden');
    expectErrorBody(await s.agent.api.patch(`${s.base}/sla_policies/${id}`, { name: 'Mine' }), 403);
    expectErrorBody(await s.agent.api.delete(`${s.base}/sla_policies/${id}`), 403);

    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/sla_policies`, { description: 'no name' }), 422))).toHaveProperty(
      'name',
    );
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/sla_policies`, { name: 'x', first_response_time_threshold: -1 }), 422)),
    ).toHaveProperty('first_response_time_threshold');
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/sla_policies/${id}`, { resolution_time_threshold: 'soon' }), 422)),
    ).toHaveProperty('resolution_time_threshold');
    expectErrorBody(await s.admin.api.get(`${s.base}/sla_policies/abc`), 404);
    const names = (await s.admin.api.get(`${s.base}/sla_policies`)).body.payload.map((x: { name: string }) => x.name);
    expect(names).not.toContain('Mine');
    expect(names).not.toContain('x');
    expect((await s.admin.api.get(`${s.base}/sla_policies/${id}`)).body.payload.name).toBe('Silver');
  });
});

describe('SLA routes of a suspended account', () => {
  it('are refused (403) while suspended, and answer again once active', async () => {
    const s = await seedAccount();
    const p = ok(await s.admin.api.post(`${s.base}/sla_policies`, { name: 'Any' }), 'policy').payload;
    const setStatus = async (status: string) =>
      expect((await s.platform.patch(`/platform/api/v1/accounts/${s.accountId}`, { status })).status).toBe(200);
    await setStatus('suspended');
    try {
      for (const res of [
        await s.agent.api.get(`${s.base}/sla_policies`),
        await s.admin.api.post(`${s.base}/sla_policies`, { name: 'New' }),
        await s.admin.api.patch(`${s.base}/sla_policies/${p.id}`, { name: 'Renamed' }),
        await s.admin.api.delete(`${s.base}/sla_policies/${p.id}`),
        await s.admin.api.get(`${s.base}/applied_slas`),
        await s.admin.api.get(`${s.base}/applied_slas/metrics`),
        await s.admin.api.get(`${s.base}/applied_slas/download`),
      ]) {
        expect(expectErrorBody(res, 403).errors[0].code).toBe('account_suspended');
      }
    } finally {
      await setStatus('active');
    }
    expect(ok(await s.admin.api.get(`${s.base}/sla_policies`), 'active again').payload).toEqual([{ ...p }]);
    expect(ok(await s.admin.api.get(`${s.base}/applied_slas/metrics`), 'metrics')).toEqual({
      total_applied_slas: 0,
      number_of_sla_misses: 0,
      hit_rate: '100%',
    });
  });
});

describe('applied SLAs (pipeline, wake-ups, applied_slas)', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let recorder: ReturnType<typeof callRecorder>;
  beforeAll(async () => {
    s = await seedAccount();
    recorder = callRecorder('slaTestRecorder');
  });

  const policy = async (body: Record<string, unknown>) =>
    ok(await s.admin.api.post(`${s.base}/sla_policies`, body), 'policy').payload as { id: number; name: string };
  /** A conversation with the contact's first message, in an inbox of its own. */
  const conversation = async () => {
    const inbox = await newInbox(s);
    const contact = await newContact(s);
    const c = ok(await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contact.id }), 'conversation');
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'hello?', message_type: 'incoming' }), 'incoming');
    return { inbox, contact, c: c as { id: number; created_at: number } };
  };
  const applied = (id: number) => getAppliedSla(s.accountId, id, true);

  it('a first response not given in 3 seconds is missed at the deadline: SLA event, notification, list, metrics, CSV', async () => {
    const fast = await policy({ name: 'Fast', first_response_time_threshold: 3, resolution_time_threshold: 3600 });
    // The administrator asks for the miss's notification (Chatwoot's rule: only the types a user's settings select).
    ok(
      await s.admin.api.patch(`${s.base}/notification_settings`, {
        selected_email_flags: ['email_sla_missed_first_response'],
        selected_push_flags: [],
      }),
      'settings',
    );
    const { inbox, contact, c } = await conversation();
    const patched = ok(await s.admin.api.patch(`${s.base}/conversations/${c.id}`, { sla_policy_id: fast.id }), 'apply');
    expect(patched.sla_policy_id).toBe(fast.id);
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').sla_policy_id).toBe(fast.id);
    // Applied by the pipeline, active until the deadline.
    const first = await until(() => applied(c.id), { what: 'the applied SLA' });
    expect(first).toMatchObject({ sla_policy_id: fast.id, inbox_id: inbox.id, sla_events: [] });
    const due = c.created_at + 3;

    // Nothing changes the conversation from here: only the deadline's wake-up can find the miss.
    const missed = await until(async () => ((await applied(c.id))?.sla_events.length ? applied(c.id) : undefined), {
      what: 'the first-response miss',
      timeoutMs: 20_000,
    });
    expect(missed!.sla_status).toBe('active_with_misses');
    expect(missed!.sla_events).toEqual([{ id: expect.any(Number), event_type: 'frt', meta: {}, created_at: expect.any(Number) }]);
    // On time: within two seconds of the deadline (whole seconds on both sides).
    expect(missed!.sla_events[0].created_at).toBeGreaterThanOrEqual(due - 1);
    expect(missed!.sla_events[0].created_at).toBeLessThanOrEqual(due + 2);

    const note = await until(
      async () =>
        (ok(await s.admin.api.get(`${s.base}/notifications`), 'notifications').data.payload as any[]).find(
          (n) => n.primary_actor_id === c.id && n.notification_type === 'sla_missed_first_response',
        ),
      { what: 'the miss notification' },
    );
    expect(note.push_message_title).toBe(`SLA target first response missed for conversation #${c.id}`);

    recorder.take();
    const list = ok(await s.admin.api.get(`${s.base}/applied_slas?sla_policy_id=${fast.id}`), 'applied_slas');
    // The list read the range's applied SLAs (one Query) and the page's contact, nothing in the conversation's partition.
    const calls = recorder.take();
    expect(calls.filter((x) => x.input.includes(`CONV#${s.accountId}#${c.id}"`))).toEqual([]);
    expect(calls.filter((x) => x.input.includes(`ASLAS#${s.accountId}"`)).map((x) => x.command)).toEqual(['QueryCommand']);
    expect(list.meta).toEqual({ count: 1, current_page: 1 });
    expect(list.payload).toEqual([
      {
        applied_sla: {
          id: missed!.id,
          sla_id: fast.id,
          sla_status: 'active_with_misses',
          created_at: expect.any(Number),
          updated_at: expect.any(Number),
          sla_description: null,
          sla_name: 'Fast',
          sla_first_response_time_threshold: 3,
          sla_next_response_time_threshold: null,
          sla_only_during_business_hours: false,
          sla_resolution_time_threshold: 3600,
        },
        conversation: { id: c.id, contact: { name: contact.name }, labels: [] },
        sla_events: [
          { id: missed!.sla_events[0].id, event_type: 'frt', meta: {}, created_at: expect.any(Number), updated_at: expect.any(Number) },
        ],
      },
    ]);
    // Filters: another inbox, or a range before it, lists nothing.
    expect(ok(await s.admin.api.get(`${s.base}/applied_slas?inbox_id=${inbox.id + 1000}`), 'by inbox').meta.count).toBe(0);
    expect(ok(await s.admin.api.get(`${s.base}/applied_slas?since=1&until=2`), 'by range').payload).toEqual([]);
    expect(ok(await s.admin.api.get(`${s.base}/applied_slas?assigned_agent_id=${s.agent.id}`), 'by agent').meta.count).toBe(0);

    expect(ok(await s.admin.api.get(`${s.base}/applied_slas/metrics?sla_policy_id=${fast.id}`), 'metrics')).toEqual({
      total_applied_slas: 1,
      number_of_sla_misses: 1,
      hit_rate: '0%',
    });
    const csv = await s.admin.api.get(`${s.base}/applied_slas/download?sla_policy_id=${fast.id}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('Conversation ID,SLA Policy,Assignee,Team,Inbox,Labels,Link to the Conversation,Breached Events');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${c.id},Fast,,,${inbox.name},,http[^,]+/conversations/${c.id},frt$`)),
    ]);

    // Administrators only; bad filters are 422.
    for (const path of ['applied_slas', 'applied_slas/metrics', 'applied_slas/download']) {
      expectErrorBody(await s.agent.api.get(`${s.base}/${path}`), 403);
    }
    expectErrorBody(await s.admin.api.get(`${s.base}/applied_slas?inbox_id=x`), 422);
    expectErrorBody(await s.admin.api.get(`${s.base}/applied_slas?since=20&until=10`), 422);
  });

  it('add_sla applies a policy from an automation rule; a reply in time and a resolution make it a hit', async () => {
    const calm = await policy({ name: 'Calm', first_response_time_threshold: 600 });
    const inbox = await newInbox(s);
    ok(
      await s.admin.api.post(`${s.base}/automation_rules`, {
        name: 'SLA for this inbox',
        event_name: 'conversation_created',
        conditions: [{ attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [inbox.id], query_operator: null }],
        actions: [{ action_name: 'add_sla', action_params: [calm.id] }],
      }),
      'rule',
    );
    expectErrorBody(
      await s.admin.api.post(`${s.base}/automation_rules`, {
        name: 'bad',
        event_name: 'conversation_created',
        conditions: [{ attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [inbox.id], query_operator: null }],
        actions: [{ action_name: 'add_sla', action_params: ['soon'] }],
      }),
      422,
    );
    const contact = await newContact(s);
    const c = ok(await s.admin.api.post(`${s.base}/conversations`, { inbox_id: inbox.id, contact_id: contact.id }), 'conversation');
    await until(async () => ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').sla_policy_id === calm.id, {
      what: 'the rule to apply the policy',
    });
    await until(() => applied(c.id), { what: 'the applied SLA' });
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'hi', message_type: 'incoming' }), 'incoming');
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'on it', message_type: 'outgoing' }), 'reply');
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/toggle_status`, { status: 'resolved' }), 'resolve');
    const hit = await until(async () => ((await applied(c.id))?.sla_status === 'hit' ? applied(c.id) : undefined), { what: 'the hit' });
    expect(hit!.sla_events).toEqual([]);
    expect(ok(await s.admin.api.get(`${s.base}/applied_slas/metrics?sla_policy_id=${calm.id}`), 'metrics')).toEqual({
      total_applied_slas: 1,
      number_of_sla_misses: 0,
      hit_rate: '100%',
    });
    expect(ok(await s.admin.api.get(`${s.base}/applied_slas?sla_policy_id=${calm.id}`), 'list').payload).toEqual([]);
    // A conversation that has a policy keeps it: add_sla applies only where there is none; a foreign policy is 422.
    expect(
      fieldsOf(
        expectErrorBody(await s.admin.api.patch(`${s.base}/conversations/${c.id}`, { priority: 'high', sla_policy_id: 999_999_999 }), 422),
      ),
    ).toEqual({ sla_policy_id: 'invalid' });
    const after = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
    expect([after.priority, after.sla_policy_id]).toEqual([null, calm.id]);
  });

  it("follows the conversation's assignee, team, labels and policy through the pipeline", async () => {
    const calm = await policy({ name: 'Calm list', first_response_time_threshold: 600 });
    const { inbox, c } = await conversation();
    ok(await s.admin.api.patch(`${s.base}/conversations/${c.id}`, { sla_policy_id: calm.id }), 'apply');
    const metrics = async (filter: string) =>
      ok(await s.admin.api.get(`${s.base}/applied_slas/metrics?sla_policy_id=${calm.id}${filter}`), 'metrics').total_applied_slas as number;
    await until(async () => (await metrics('')) === 1, { what: 'the applied SLA' });
    // The agent is in the team (a team without the assignee would unassign the conversation, as Chatwoot does).
    const team = await newTeam(s, [s.agent.id]);
    await addInboxMembers(s, inbox.id, [s.agent.id]);
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/assignments`, { assignee_id: s.agent.id }), 'assign agent');
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/assignments`, { team_id: team.id }), 'assign team');
    ok(await s.admin.api.post(`${s.base}/conversations/${c.id}/labels`, { labels: ['billing', 'vip'] }), 'labels');
    const filters = `&assigned_agent_id=${s.agent.id}&team_id=${team.id}&label_list=billing,vip`;
    await until(async () => (await metrics(filters)) === 1, { what: 'the applied SLA to follow the conversation' });
    expect(await applied(c.id)).toMatchObject({
      conversation: { sla_policy_id: calm.id, assignee_id: s.agent.id, team_id: team.id, labels: ['billing', 'vip'] },
    });
    expect(await metrics(`&team_id=${team.id + 1000}`)).toBe(0);
    expect(await metrics('&label_list=billing,other')).toBe(0);
    // The policy taken off: the applied SLA stays, out of applied_slas; applied again, it is listed again.
    ok(await s.admin.api.patch(`${s.base}/conversations/${c.id}`, { sla_policy_id: null }), 'take off');
    await until(async () => (await metrics('')) === 0, { what: 'the applied SLA to leave applied_slas' });
    const kept = await applied(c.id);
    expect(kept).toMatchObject({ sla_policy_id: calm.id, conversation: { sla_policy_id: null } });
    ok(await s.admin.api.patch(`${s.base}/conversations/${c.id}`, { sla_policy_id: calm.id }), 'apply again');
    await until(async () => (await metrics(filters)) === 1, { what: 'the applied SLA back in applied_slas' });
    expect((await applied(c.id))!.id).toBe(kept!.id);
  });
});
