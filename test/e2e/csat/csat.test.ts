import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { chromiumForSuite } from '../../support/chromium.ts';
import { expectErrorBody, runtime, seedAccount, type Client, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { browser, ok, openWidget, widgetApi, widgetInbox, type WidgetInbox } from '../widget/fixtures.ts';

// CSAT end to end (docs/csat.md): a resolution in a CSAT-enabled inbox sends the survey (pipeline), the contact
// answers in the widget, through the public API or on the survey page in Chromium, and administrators read the
// responses, the metrics and the CSV.

const SHOTS = join(import.meta.dirname, '../../../screenshots');
const PATIENCE = { timeoutMs: 60_000, everyMs: 200 };
const LONG = 120_000;
const RATE = (rating: number, feedback_message?: string) => ({
  message: { submitted_values: { csat_survey_response: { rating, ...(feedback_message === undefined ? {} : { feedback_message }) } } },
});

describe('CSAT surveys', () => {
  let s: SeededAccount;
  let pub: Client;
  let hook: Receiver;

  beforeAll(async () => {
    s = await seedAccount();
    pub = await browser();
    hook = await startReceiver();
    ok(
      await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['message_updated', 'conversation_status_changed'] }),
      'webhook',
    );
  }, LONG);
  afterAll(() => hook?.close());

  const messagesOf = async (id: number) => ok(await s.admin.api.get(`${s.base}/conversations/${id}/messages`), 'messages').payload as any[];
  const resolve = async (id: number) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${id}/toggle_status`, { status: 'resolved' }), 'resolve');
  const surveysOf = async (id: number) => (await messagesOf(id)).filter((m) => m.content_type === 'input_csat');
  const surveyOf = (id: number) => until(async () => (await surveysOf(id))[0], { ...PATIENCE, what: `the survey of ${id}` });
  const responses = async (query = '') => ok(await s.admin.api.get(`${s.base}/csat_survey_responses${query}`), 'responses') as any[];
  const metrics = async (query = '') => ok(await s.admin.api.get(`${s.base}/csat_survey_responses/metrics${query}`), 'metrics');

  let contacts = 0;
  /** An API inbox with CSAT on, a contact and a conversation assigned to the agent. */
  async function apiConversation(inbox: Record<string, unknown> = {}) {
    const created = ok(
      await s.admin.api.post(`${s.base}/inboxes`, { name: 'CSAT api', channel: { type: 'api' }, csat_survey_enabled: true, ...inbox }),
      'inbox',
    );
    const contact = ok(
      await s.admin.api.post(`${s.base}/contacts`, {
        name: 'Ada',
        email: `ada-${contacts}-${Date.now()}@example.com`,
        phone_number: `+1555${String(++contacts).padStart(7, '0')}`,
      }),
      'contact',
    ).payload.contact;
    const conv = ok(
      await s.admin.api.post(`${s.base}/conversations`, { inbox_id: created.id, contact_id: contact.id, assignee_id: s.agent.id }),
      'conversation',
    );
    ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'hi', message_type: 'incoming' }), 'incoming');
    return { inbox: created, contact, conv };
  }

  it('a widget conversation: the resolution sends the survey once, the widget answers, the team reads it', async () => {
    const inbox: WidgetInbox = await widgetInbox(s, {}, { csat_survey_enabled: true });
    const v = await openWidget(pub, inbox);
    const w = widgetApi(pub, inbox, v.auth_token);
    const sent = ok(await w.post('/messages', { message: { content: 'Help please' } }), 'message');
    const id = sent.conversation_id as number;
    ok(await s.admin.api.post(`${s.base}/conversations/${id}/assignments`, { assignee_id: s.agent.id }), 'assign');
    await resolve(id);

    const survey = await surveyOf(id);
    expect(survey).toMatchObject({
      message_type: 3,
      content_type: 'input_csat',
      content: 'Please rate the conversation',
      content_attributes: { display_type: 'emoji', assigned_agent_id: s.agent.id },
    });
    // The widget shows it.
    const seen = ok(await w.get('/messages'), 'widget messages') as any[];
    expect(seen.find((m) => m.id === survey.id)).toMatchObject({ content_type: 'input_csat', message_type: 3 });

    // Reopened and resolved again: still one survey.
    ok(await s.admin.api.post(`${s.base}/conversations/${id}/toggle_status`, { status: 'open' }), 'reopen');
    await resolve(id);
    await until(async () => (await messagesOf(id)).filter((m) => m.message_type === 2 && /resolved/.test(m.content)).length >= 2, PATIENCE);
    expect(await surveysOf(id)).toHaveLength(1);

    const answered = ok(await w.patch(`/messages/${survey.id}`, RATE(4, 'Quick and kind')), 'answer');
    expect(answered.content_attributes.submitted_values).toEqual({
      csat_survey_response: { rating: 4, feedback_message: 'Quick and kind' },
    });
    // Announced as message_updated with the submitted values.
    const update = await until(() => hook.received.find((r) => r.json?.event === 'message_updated' && r.json?.id === survey.id), {
      ...PATIENCE,
      what: 'message_updated of the survey',
    });
    expect(update.json.content_attributes.submitted_values.csat_survey_response).toMatchObject({ rating: 4 });

    const row = await until(async () => (await responses(`?inbox_id=${inbox.id}`))[0], { ...PATIENCE, what: 'the response' });
    expect(row).toMatchObject({
      id: survey.id,
      rating: 4,
      feedback_message: 'Quick and kind',
      account_id: s.accountId,
      message_id: survey.id,
      conversation_id: id,
      contact: expect.objectContaining({ id: v.contact.id }),
      assigned_agent: expect.objectContaining({ id: s.agent.id }),
      created_at: expect.any(Number),
    });
    const m = await until(async () => {
      const x = await metrics(`?inbox_id=${inbox.id}`);
      return x.total_count === 1 && x;
    }, PATIENCE);
    expect(m.ratings_count).toEqual({ '4': 1 });
    expect(m.total_sent_messages_count).toBeGreaterThanOrEqual(1);
  });

  it('an API conversation: the survey carries the page link; the public API answers, updates within the window, then refuses', async () => {
    const { inbox, contact, conv } = await apiConversation({ csat_config: { message: 'How did we do?', display_type: 'star' } });
    await resolve(conv.id);
    const survey = await surveyOf(conv.id);
    const { uuid } = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'conversation');
    expect(survey.content).toBe(`How did we do? ${(await runtime()).baseUrl}/survey/responses/${uuid}`);
    expect(survey.content_attributes).toMatchObject({ display_type: 'star', assigned_agent_id: s.agent.id });

    const shown = ok(await pub.get(`/public/api/v1/csat_survey/${uuid}`), 'show');
    expect(shown).toEqual({
      id: survey.id,
      csat_survey_response: null,
      display_type: 'star',
      content: 'How did we do?',
      inbox_avatar_url: expect.any(String),
      inbox_name: 'CSAT api',
      locale: expect.any(String),
      conversation_id: conv.id,
      created_at: survey.created_at,
    });
    expectErrorBody(await pub.patch(`/public/api/v1/csat_survey/${uuid}`, RATE(6)), 422);
    expectErrorBody(await pub.patch(`/public/api/v1/csat_survey/${uuid}`, { message: { submitted_values: {} } }), 422);
    expectErrorBody(await pub.get('/public/api/v1/csat_survey/3f1c9f7e-0000-4000-8000-000000000000'), 404);

    const first = ok(await pub.patch(`/public/api/v1/csat_survey/${uuid}`, RATE(5, 'Great')), 'answer');
    expect(first.csat_survey_response).toEqual({ rating: 5, feedback_message: 'Great' });
    const row = await until(async () => (await responses(`?inbox_id=${inbox.id}`))[0], { ...PATIENCE, what: 'the response' });
    expect(row).toMatchObject({ rating: 5, feedback_message: 'Great', contact: expect.objectContaining({ id: contact.id }) });

    // A second answer within the window updates the same response; the figures move from 5 to 2.
    ok(await pub.put(`/public/api/v1/csat_survey/${uuid}`, RATE(2, 'Actually slow')), 'second answer');
    const updated = await until(async () => {
      const rows = await responses(`?inbox_id=${inbox.id}`);
      return rows.length === 1 && rows[0].rating === 2 && rows;
    }, PATIENCE);
    expect(updated[0]).toMatchObject({ id: row.id, created_at: row.created_at, feedback_message: 'Actually slow' });
    const m = await until(async () => {
      const x = await metrics(`?inbox_id=${inbox.id}`);
      return x.ratings_count['2'] === 1 && x;
    }, PATIENCE);
    expect(m).toMatchObject({ total_count: 1, ratings_count: { '2': 1 } });

    // Past Chatwoot's 14 days: refused, and the stored answer stays.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.message(s.accountId, conv.id, survey.id),
        UpdateExpression: 'SET created_at = :t',
        ExpressionAttributeValues: { ':t': survey.created_at - 15 * 86_400 },
      }),
    );
    const late = await pub.patch(`/public/api/v1/csat_survey/${uuid}`, RATE(1));
    expectErrorBody(late, 422);
    expect(late.text).toContain('14 days');
    expect(ok(await pub.get(`/public/api/v1/csat_survey/${uuid}`), 'show').csat_survey_response).toEqual({
      rating: 2,
      feedback_message: 'Actually slow',
    });
  });

  it('an inbox without CSAT sends no survey', async () => {
    const { conv } = await apiConversation({ csat_survey_enabled: false });
    await resolve(conv.id);
    // Deliveries leave after their whole dispatch batch: once the resolution's webhook is here, the CSAT stage ran.
    await until(
      () =>
        hook.received.find(
          (r) => r.json?.event === 'conversation_status_changed' && r.json?.id === conv.id && r.json?.status === 'resolved',
        ),
      { ...PATIENCE, what: 'the resolution webhook' },
    );
    expect(await surveysOf(conv.id)).toEqual([]);
  });

  it('lists with filters and pages, metrics per filter, downloads CSV; administrators only', async () => {
    const a = await apiConversation();
    const b = await apiConversation();
    for (const [x, rating] of [
      [a, 1],
      [b, 5],
    ] as const) {
      await resolve(x.conv.id);
      await surveyOf(x.conv.id);
      const { uuid } = ok(await s.admin.api.get(`${s.base}/conversations/${x.conv.id}`), 'conversation');
      ok(await pub.patch(`/public/api/v1/csat_survey/${uuid}`, RATE(rating, rating === 1 ? 'bad, "really"' : undefined)), 'answer');
    }
    const both = `?inbox_id=${a.inbox.id}`;
    await until(async () => (await responses(both)).length === 1 && (await responses(`?inbox_id=${b.inbox.id}`)).length === 1, PATIENCE);
    expect((await responses(`?rating=5&user_ids=${s.agent.id}`)).every((r) => r.rating === 5)).toBe(true);
    expect(await responses(`?rating=5&inbox_id=${a.inbox.id}`)).toEqual([]);
    expect(await responses('?page=99')).toEqual([]);
    const now = Math.floor(Date.now() / 1000);
    expect(await responses(`?since=${now - 3600}&until=${now + 3600}&inbox_id=${b.inbox.id}`)).toHaveLength(1);
    expect(await responses(`?since=${now - 7200}&until=${now - 3600}`)).toEqual([]);
    expectErrorBody(await s.admin.api.get(`${s.base}/csat_survey_responses?rating=7`), 422);
    expectErrorBody(await s.admin.api.get(`${s.base}/csat_survey_responses?since=yesterday&until=1`), 422);

    const agentMetrics = await until(async () => {
      const x = await metrics(`?user_ids=${s.agent.id}&since=${now - 3600}&until=${now + 3600}`);
      return x.ratings_count['1'] >= 1 && x.ratings_count['5'] >= 1 && x;
    }, PATIENCE);
    expect(agentMetrics.total_count).toBe(Object.values(agentMetrics.ratings_count as Record<string, number>).reduce((p, q) => p + q, 0));
    expect(agentMetrics.total_sent_messages_count).toBeGreaterThanOrEqual(agentMetrics.total_count);
    // Two dimensions at once are counted from the response items.
    expect(await metrics(`?inbox_id=${a.inbox.id}&user_ids=${s.agent.id}`)).toMatchObject({ total_count: 1, ratings_count: { '1': 1 } });
    expect(await metrics(`?inbox_id=${a.inbox.id}&rating=5`)).toMatchObject({ total_count: 0, ratings_count: {} });

    const csv = await s.admin.api.get(
      `${s.base}/csat_survey_responses/download?inbox_id=${a.inbox.id}&since=${now - 3600}&until=${now + 3600}`,
    );
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe(
      'Agent Name,Rating,Feedback Comment,Contact Name,Contact Email Address,Contact Phone Number,Link to the conversation,Recorded date',
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(',1,"bad, ""really""",Ada,');
    expect(lines[1]).toContain(`/app/accounts/${s.accountId}/conversations/${a.conv.id}`);
    expect(lines[2]).toMatch(/^Reporting period \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d$/);

    // A deleted conversation takes its response along, from the list and from the metrics.
    ok(await s.admin.api.delete(`${s.base}/conversations/${b.conv.id}`), 'delete conversation');
    await until(async () => (await responses(`?inbox_id=${b.inbox.id}`)).length === 0, { ...PATIENCE, what: 'the response gone' });
    await until(async () => (await metrics(`?inbox_id=${b.inbox.id}`)).total_count === 0, { ...PATIENCE, what: 'the figures gone' });

    for (const path of ['', '/metrics', '/download']) {
      expectErrorBody(await s.agent.api.get(`${s.base}/csat_survey_responses${path}`), 403);
    }
    const other = await seedAccount();
    expect((await other.admin.api.get(`${other.base}/csat_survey_responses`)).body).toEqual([]);
    expect([401, 403, 404]).toContain((await other.admin.api.get(`${s.base}/csat_survey_responses`)).status);
  });

  it("a suspended account's survey is refused everywhere (403), and answers again once active", async () => {
    const { conv } = await apiConversation();
    await resolve(conv.id);
    await surveyOf(conv.id);
    const { uuid } = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'conversation');
    const setStatus = async (status: string) =>
      expect((await s.platform.patch(`/platform/api/v1/accounts/${s.accountId}`, { status })).status).toBe(200);
    await setStatus('suspended');
    try {
      for (const res of [
        await pub.get(`/public/api/v1/csat_survey/${uuid}`),
        await pub.patch(`/public/api/v1/csat_survey/${uuid}`, RATE(3)),
        await s.admin.api.get(`${s.base}/csat_survey_responses`),
      ]) {
        expect(expectErrorBody(res, 403).errors[0].code).toBe('account_suspended');
      }
      const page = await pub.get(`/survey/responses/${uuid}`, { accept: 'text/html' });
      expect(page.status).toBe(403);
      expect(page.text).toContain('This survey is not available.');
    } finally {
      await setStatus('active');
    }
    expect(ok(await pub.get(`/public/api/v1/csat_survey/${uuid}`), 'active again').csat_survey_response).toBeNull();
  });

  describe('the survey page in a browser', () => {
    const executablePath = chromiumForSuite();
    let chrome: Browser;
    beforeAll(async () => {
      if (!executablePath) return;
      mkdirSync(SHOTS, { recursive: true });
      chrome = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    }, LONG);
    afterAll(async () => {
      await chrome?.close();
    });

    it(
      'takes a rating and feedback and shows the thanks; an unknown survey is a 404 page',
      async () => {
        const { inbox, conv } = await apiConversation();
        await resolve(conv.id);
        await surveyOf(conv.id);
        const { uuid } = ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}`), 'conversation');
        const base = (await runtime()).baseUrl;
        const page = await (await chrome.newContext({ viewport: { width: 420, height: 760 } })).newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        const res = await page.goto(`${base}/survey/responses/${uuid}`);
        expect(res?.status()).toBe(200);
        await expect(page.locator('h1').textContent()).resolves.toBe('Please rate the conversation');
        await page.getByRole('button', { name: 'Submit' }).click();
        await expect(page.locator('#error').textContent()).resolves.toBe('Choose a rating first.');
        await page.locator('label', { has: page.getByLabel('Rating 4') }).click();
        await page.fill('#feedback', 'Lovely <b>team</b>');
        await page.screenshot({ path: join(SHOTS, 'csat-survey.png') });
        await page.getByRole('button', { name: 'Submit' }).click();
        await page.locator('#thanks').waitFor({ state: 'visible', timeout: 30_000 });
        await expect(page.locator('#thanks').textContent()).resolves.toBe('Thank you for submitting the rating');
        await page.screenshot({ path: join(SHOTS, 'csat-thanks.png') });
        expect(errors).toEqual([]);

        const row = await until(async () => (await responses(`?inbox_id=${inbox.id}`))[0], { ...PATIENCE, what: 'the response' });
        expect(row).toMatchObject({ rating: 4, feedback_message: 'Lovely <b>team</b>' });
        // Opened again: the thanks, not the form.
        await page.goto(`${base}/survey/responses/${uuid}`);
        await expect(page.locator('#thanks').isVisible()).resolves.toBe(true);
        await expect(page.locator('form').count()).resolves.toBe(0);

        const missing = await page.goto(`${base}/survey/responses/3f1c9f7e-0000-4000-8000-000000000000`);
        expect(missing?.status()).toBe(404);
        await expect(page.locator('h1').textContent()).resolves.toBe('This survey is not available.');
      },
      LONG,
    );
  });
});
