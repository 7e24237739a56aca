import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../infra/build.ts';
import { client, runtime, seedAccount, unique, type Client, type SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';
import { newContact, newConversation, ok } from '../conversations/fixtures.ts';

// The help center and CSAT survey operations of the n8n Chatwoot node (`@devlikeapro/n8n-nodes-chatwoot` 1.0.2), in
// their exact request shapes (test/fixtures/n8n/chatwoot-help-center-csat-operations.json, read from the node's
// properties as test/e2e/integrations/n8n-node.test.ts reads the others): every body field at the node's default (its
// examples included: a colour that is a sentence, `"locale": "en/es"`, a custom domain with a path) but what a user
// fills in, answered as Chatwoot answers. The node takes its paths from Chatwoot's swagger, which names no portal
// in "Update New Portal To Account": that PATCH has no route in Chatwoot either.

interface Operation {
  operation: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

const OPERATIONS: Operation[] = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/n8n/chatwoot-help-center-csat-operations.json'), 'utf8'));

interface World {
  s: SeededAccount;
  pages: Client;
  portal: string;
  uuid: string;
  conversationId: number;
}

interface Filled {
  params: Record<string, string | number>;
  body?: Record<string, unknown>;
  status?: number;
}

const FILL: Record<string, (w: World) => Filled> = {
  'Get Portal': (w) => ({ params: { account_id: w.s.accountId } }),
  // The node's colour default is a sentence ("add color HEX string…"), which Chatwoot's portal refuses (its colour is
  // `#` and 3 or 6 hex digits): a user fills it in (the refusal is checked below).
  'Add New Portal To Account': (w) => ({
    params: { account_id: w.s.accountId },
    body: { name: 'Handbook', slug: unique('handbook-'), color: '#7c3aed' },
  }),
  // Chatwoot's routes have no PATCH /portals: 404, as Rails answers an unknown route.
  'Update New Portal To Account': (w) => ({ params: { account_id: w.s.accountId }, status: 404 }),
  'Add New Category To Account': (w) => ({
    params: { account_id: w.s.accountId, portal_id: w.portal },
    body: { name: 'Billing', slug: unique('billing-'), locale: 'en' },
  }),
  'Add New Article To Account': (w) => ({
    params: { account_id: w.s.accountId, portal_id: w.portal },
    body: { title: 'Refunds', slug: unique('refunds-'), content: 'How **refunds** work.', author_id: w.s.admin.id },
  }),
  'Get Csat Survey Page': (w) => ({ params: { conversation_uuid: w.uuid } }),
};

describe('the n8n node’s help center and CSAT survey operations', () => {
  let w: World;

  beforeAll(async () => {
    const rt = await runtime();
    const s = await seedAccount();
    const portal = ok(await s.admin.api.post(`${s.base}/portals`, { name: 'Docs', slug: unique('docs-') }), 'portal').slug as string;
    // A conversation whose resolution sent the survey (CSAT on its inbox), for the survey page.
    const inbox = ok(
      await s.admin.api.post(`${s.base}/inboxes`, { name: unique('csat'), channel: { type: 'api' }, csat_survey_enabled: true }),
      'inbox',
    );
    const contact = await newContact(s);
    const conv = (await newConversation(s, { inbox_id: inbox.id, contact_id: contact.id })) as { id: number; uuid: string };
    ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/toggle_status`, { status: 'resolved' }), 'resolve');
    await until(
      async () =>
        (ok(await s.admin.api.get(`${s.base}/conversations/${conv.id}/messages`), 'messages').payload as any[]).some(
          (m) => m.content_type === 'input_csat',
        ),
      { what: 'the survey', timeoutMs: 60_000, everyMs: 250 },
    );
    w = { s, pages: client(rt.baseUrl), portal, uuid: conv.uuid, conversationId: conv.id };
  }, 120_000);

  it('covers the node’s help center and CSAT survey operations', () => {
    expect(OPERATIONS.map((o) => o.operation).sort()).toEqual(Object.keys(FILL).sort());
  });

  it('answers each as Chatwoot does', async () => {
    const wrong: string[] = [];
    for (const op of OPERATIONS) {
      const filled = FILL[op.operation](w);
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => String(filled.params[name]));
      const body = op.body ? { ...op.body, ...filled.body } : undefined;
      const api = path.startsWith('/survey/') ? w.pages : w.s.admin.api;
      const res = await api.request(op.method, path, body);
      if (res.status !== (filled.status ?? 200)) wrong.push(`${op.operation}: ${res.status} ${res.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('refuses the node’s colour placeholder, as Chatwoot', async () => {
    const op = OPERATIONS.find((o) => o.operation === 'Add New Portal To Account')!;
    const res = await w.s.admin.api.post(`${w.s.base}/portals`, { ...op.body, name: 'Placeholder', slug: unique('placeholder-') });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['color']);
  });

  it('stores the node’s defaults as Chatwoot stores them', async () => {
    const [portals] = [ok(await w.s.admin.api.get(`${w.s.base}/portals`), 'portals').payload as any[]];
    const handbook = portals.find((p) => p.name === 'Handbook');
    expect(handbook).toMatchObject({ archived: true, header_text: 'Handbook', homepage_link: 'https://www.chatwoot.com/' });
    expect(handbook.config).toMatchObject({ default_locale: 'en' });
    const articles = ok(await w.s.admin.api.get(`${w.s.base}/portals/${w.portal}/articles`), 'articles').payload as any[];
    // `status: 0` is Chatwoot's enum for a draft.
    expect(articles.find((a) => a.title === 'Refunds')).toMatchObject({ status: 'draft' });
  });

  it('answers the other n8n node’s CSAT calls (RenatoAscencio/n8n-nodes-chatwoot: get, metrics, download)', async () => {
    // Its dateTime options (ISO date-times from n8n's picker, whole seconds) become Unix seconds
    // (`new Date(x).getTime() / 1000`).
    const day = new Date().toISOString().slice(0, 10);
    const since = new Date(`${day}T00:00:00Z`).getTime() / 1000 - 86_400;
    const until = new Date(`${day}T00:00:00Z`).getTime() / 1000 + 86_400;
    const got = await w.s.admin.api.get(`${w.s.base}/csat_survey_responses?conversation_id=${w.conversationId}`);
    expect(got.status).toBe(200);
    expect(Array.isArray(got.body)).toBe(true);
    const metrics = await w.s.admin.api.get(`${w.s.base}/csat_survey_responses/metrics?since=${since}&until=${until}`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatchObject({ total_count: expect.any(Number), total_sent_messages_count: 1 });
    const csv = await w.s.admin.api.get(`${w.s.base}/csat_survey_responses/download?since=${since}&until=${until}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
  });
});
