import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '#shared/config.ts';
import { overrideEnv } from '../../support/env.ts';
import * as keys from '#shared/db/keys.ts';
import { queryPrefix } from '#shared/db/repositories/common.ts';
import { addToRateWindow } from '#shared/db/repositories/limits.ts';
import { Limiter } from '#shared/http/limiter.ts';
import { limitScope } from '#shared/http/limits.ts';
import { expectErrorBody, runtime, seedAccount, unique, type Res, type SeededAccount } from '../../support/runtime.ts';
import { anonymous, apiInbox, contactPath, inboxPath, publicContact, type ApiInbox } from '../public/fixtures.ts';
import { browser, configPath, openWidget, widgetInbox, type WidgetInbox, type WidgetSession } from '../widget/fixtures.ts';

// Request limits through the local runtime: per credential, per account, per public inbox and contact,
// each answered 429 in the error body with Retry-After, and the shared window item that makes a limit
// hold across containers (in DynamoDB Local). The limits are lowered for this file only (the runtime's
// handlers read the configuration per request) and put back afterwards.

const LOW = {
  LIMIT_ACCOUNT_PER_MINUTE: '1',
  LIMIT_ACCOUNT_BURST: '6',
  LIMIT_CREDENTIAL_PER_MINUTE: '1',
  LIMIT_CREDENTIAL_BURST: '4',
  // quota 7 per window for an account: a write per request here, so the shared item is exercised.
  LIMIT_SYNC_PERCENT: '5',
};

function limited(res: Res, what: string) {
  const err = expectErrorBody(res, 429);
  expect(err.description).toBe(`Too many requests for this ${what}`);
  expect(err.errors[0]!.code).toBe('rate_limited');
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  // One token a minute: the next is at most a minute away.
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(err.errors[0]!.message).toBe(`Retry in ${retryAfter} seconds`);
}

const windowTotal = async (scope: string) =>
  (await queryPrefix({ pk: keys.rateWindow(scope, 0).pk }, 'W#')).reduce((t, i) => t + Number(i.n), 0);

describe('request limits', () => {
  let a: SeededAccount;
  let b: SeededAccount;
  let c: SeededAccount;
  let inbox: ApiInbox;
  let other: ApiInbox;
  let site: WidgetInbox;
  let visitor: WidgetSession;
  let restoreEnv: () => void;

  beforeAll(async () => {
    await runtime();
    // Made under the suite's limits: the seeding calls spend nothing of what is measured below.
    // The public interface's inboxes are in an account of their own: A's and B's windows count only the checks.
    [a, b, c] = await Promise.all([seedAccount(), seedAccount(), seedAccount()]);
    [inbox, other, site] = await Promise.all([apiInbox(c), apiInbox(c), widgetInbox(c)]);
    visitor = await openWidget(await browser(), site);
    restoreEnv = overrideEnv(LOW);
  });

  afterAll(() => restoreEnv?.());

  it("a token that spends its limit is refused; the account's other token works until the account's limit; another account is unaffected", async () => {
    const labels = `${a.base}/labels`;
    for (let i = 0; i < 4; i++) expect((await a.admin.api.get(labels)).status).toBe(200);
    limited(await a.admin.api.get(labels), 'access token');
    // Refused before the credential is read: a write is refused the same, and changes nothing.
    limited(await a.admin.api.post(labels, { title: unique('l') }), 'access token');

    // The agent's own token still has its burst; the account has 2 of its 6 left.
    expect((await a.agent.api.get(labels)).status).toBe(200);
    expect((await a.agent.api.get(labels)).status).toBe(200);
    limited(await a.agent.api.get(labels), 'account');

    // Another account, with its own tokens, is untouched by all of it.
    for (let i = 0; i < 4; i++) {
      const res = await b.admin.api.get(`${b.base}/labels`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body.payload)).toBe(true);
    }

    // What the account allowed went to its shared window, counted once per allowed request.
    expect(await windowTotal(limitScope.account(a.accountId))).toBe(6);
    expect(await windowTotal(limitScope.account(b.accountId))).toBe(4);
  });

  it("an unknown token is limited like any other, and spends no account's budget", async () => {
    const stranger = (await anonymous()) as Awaited<ReturnType<typeof anonymous>>;
    const headers = { api_access_token: unique('not-a-token-') };
    for (let i = 0; i < 4; i++) expectErrorBody(await stranger.get(`${b.base}/labels`, headers), 401);
    limited(await stranger.get(`${b.base}/labels`, headers), 'access token');
    // Account B's window counts only its own members' requests (4, from the test above).
    expect(await windowTotal(limitScope.account(b.accountId))).toBe(4);
  });

  it('public interface: a contact is limited on its own, an inbox as a whole', async () => {
    const api = await anonymous();
    // Contacts are made under a raised limit, then it is lowered again for the checks. Buckets only here
    // (the shared window, which would count the creations too, is the account test's).
    process.env.LIMIT_SYNC_PERCENT = '0';
    process.env.LIMIT_ACCOUNT_BURST = '1000';
    resetConfig();
    const [c1, c2] = [await publicContact(api, inbox), await publicContact(api, inbox)];
    process.env.LIMIT_ACCOUNT_BURST = LOW.LIMIT_ACCOUNT_BURST;
    resetConfig();

    for (let i = 0; i < 4; i++) expect((await api.get(contactPath(inbox, c1.source_id))).status).toBe(200);
    limited(await api.get(contactPath(inbox, c1.source_id)), 'contact');
    // The second contact of the inbox has its own allowance, until the inbox's runs out.
    // (The inbox has 2 of its 6 left: a request refused for its contact spent nothing of the inbox.)
    expect((await api.get(contactPath(inbox, c2.source_id))).status).toBe(200);
    expect((await api.get(`${contactPath(inbox, c2.source_id)}/conversations`)).status).toBe(200);
    limited(await api.get(contactPath(inbox, c2.source_id)), 'inbox');
    // Another inbox answers.
    const res = await api.get(inboxPath(other));
    expect(res.status).toBe(200);
    expect(res.body.identifier).toBe(other.inbox_identifier);
  });

  it('widget: a visitor is limited by its X-Auth-Token, the site by its website_token', async () => {
    process.env.LIMIT_SYNC_PERCENT = '0';
    resetConfig();
    const api = await browser();
    const contact = `/api/v1/widget/contact?website_token=${encodeURIComponent(site.website_token)}`;
    const auth = { 'X-Auth-Token': visitor.auth_token };
    for (let i = 0; i < 4; i++) {
      const res = await api.get(contact, auth);
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(visitor.contact.id);
    }
    limited(await api.get(contact, auth), 'contact');
    // New visitors (no auth token yet) share what is left of the site's 6, then the site is refused.
    const fresh = await api.post(configPath(site.website_token));
    expect(fresh.status).toBe(200);
    expect(typeof fresh.body.auth_token).toBe('string');
    expect((await api.post(configPath(site.website_token))).status).toBe(200);
    limited(await api.post(configPath(site.website_token)), 'inbox');
  });

  it('the shared window holds a limit across containers: a container that served nothing refuses once its first write reports the window full', async () => {
    const scope = `TEST:${unique('scope')}`;
    const limit = { perMinute: 60, burst: 40 }; // quota 100 per window, a lump every 10 requests
    const now = () => Date.UTC(2031, 0, 1, 0, 0, 30);
    const first = new Limiter({ shared: { add: addToRateWindow }, now, syncShare: 0.1 });
    let allowed = 0;
    for (let i = 0; i < 40; i++) if ((await first.take(scope, limit)).allowed) allowed++;
    expect(allowed).toBe(40);
    // Other containers' counts, as they would have added them.
    await addToRateWindow(scope, Date.UTC(2031, 0, 1) / 1000, 50, Date.UTC(2031, 0, 1) / 1000 + 120);
    const second = new Limiter({ shared: { add: addToRateWindow }, now, syncShare: 0.1 });
    const verdicts = [];
    for (let i = 0; i < 11; i++) verdicts.push((await second.take(scope, limit)).allowed);
    expect(verdicts).toEqual([...Array(10).fill(true), false]);
    expect(await second.take(scope, limit)).toEqual({ allowed: false, retryAfter: 30, reason: 'window' });
    expect(await windowTotal(scope)).toBe(100);
  });
});
