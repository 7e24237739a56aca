import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';
import { setDefaultResolver, type Resolver } from '#shared/outbound/address-guard.ts';
import { refuseConnections } from '../../support/connections.ts';
import { overrideEnv } from '../../support/env.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { loopbackOnlyResolver } from '../../support/resolver.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';

// Under the local runtime an account's webhook reaches local receivers (loopback) and nothing else that is
// not public: not the developer's network (10.x, 192.168.x) nor the cloud metadata address, whether named
// by an IP literal or by a name that resolves there. Refused before connecting, permanently (dead at the
// first attempt, its error in the deliveries list). No packet may leave for such an address even if the
// guard failed: while this file runs, every socket of this process that would connect anywhere but loopback
// is refused and recorded, which fails the test.

/** Names that resolve to private and metadata addresses, as a LAN's or a cloud's DNS would answer. */
const PRIVATE_NAMES: Record<string, string> = {
  'intranet.test': '10.20.30.40',
  'lan.test': '192.168.1.20',
  'metadata.test': '169.254.169.254',
};

const privateNames: Resolver = (hostname, options, callback) => {
  const address = PRIVATE_NAMES[hostname.toLowerCase()];
  if (address) return queueMicrotask(() => callback(null, [{ address, family: 4 }]));
  loopbackOnlyResolver(hostname, options, callback);
};

describe('webhook targets under the local runtime', () => {
  let s: SeededAccount;
  let hook: Receiver;
  let guard: ReturnType<typeof refuseConnections>;
  let restoreEnv: () => void;

  beforeAll(async () => {
    await runtime();
    // As `npm start` runs without the developer's opt-in.
    restoreEnv = overrideEnv({ ALLOW_PRIVATE_WEBHOOK_TARGETS: undefined });
    guard = refuseConnections();
    setDefaultResolver(privateNames);
    s = await seedAccount();
    hook = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    setDefaultResolver(loopbackOnlyResolver);
    guard?.restore();
    restoreEnv?.();
    await hook?.close();
  });

  it('delivers to loopback and refuses private, LAN and metadata addresses before connecting, literal or named', async () => {
    expect(config().webhookTargets).toBe('loopback');
    const { port } = new URL(hook.url);
    const loopback = [hook.url, `http://localhost:${port}/named`];
    const refused = [
      'http://10.20.30.40/hook',
      'http://192.168.1.20:8080/hook',
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://intranet.test/hook',
      'http://lan.test:8080/hook',
      'http://metadata.test/latest/meta-data/',
    ];
    const ids = new Map<string, number>();
    for (const url of [...loopback, ...refused]) {
      const created = await s.admin.api.post(`${s.base}/webhooks`, { url, subscriptions: ['contact_created'] });
      expect(created.status, created.text).toBe(200);
      ids.set(url, (created.body.payload?.webhook ?? created.body).id);
    }
    const contact = await s.admin.api.post(`${s.base}/contacts`, { name: 'Ada', email: `${unique('ada')}@example.com` });
    expect(contact.status).toBe(200);

    const arrived = await hook.waitFor(2, 60_000);
    expect(arrived.map((r) => r.json.event)).toEqual(['contact_created', 'contact_created']);
    for (const url of refused) {
      const list = await untilState(
        async () =>
          (await s.admin.api.get(`${s.base}/webhooks/${ids.get(url)}/deliveries`)).body.payload.deliveries as {
            outcome: string;
            error: string | null;
            status: number | null;
          }[],
        (d) => d.length > 0,
        60_000,
      );
      expect(
        list.map((d) => [d.outcome, d.status]),
        url,
      ).toEqual([['dead', null]]);
      expect(list[0].error, url).toMatch(/^Refused to deliver to .+: it has no public address$/);
    }
    // Nothing of this process tried to reach them.
    expect(guard.attempts).toEqual([]);
    expect(hook.received.map((r) => new URL(r.headers.host ? `http://${r.headers.host}` : hook.url).hostname).sort()).toEqual([
      '127.0.0.1',
      'localhost',
    ]);
  }, 120_000);
});
