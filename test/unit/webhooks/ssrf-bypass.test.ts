import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '#shared/outbound/address-guard.ts';
import { postJson } from '#shared/outbound/send.ts';
import { loopbackOnlyResolver } from '../../support/resolver.ts';

// The deployed-mode guard (private targets not allowed) against SSRF bypass payloads, each aimed at a
// real receiver on the loopback interface: none may reach it. No traffic leaves the machine: names are
// answered by a stand-in resolver; literals and `localhost` as the hosts file answers them
// (test/support/resolver.ts).

let hits = 0;
let receiver: Server;
let port = 0;

// Names an attacker controls, pointing at private ranges (what a DNS record or a rebinding service answers).
const NAMES: Record<string, string[]> = {
  'loopback.attacker.test': ['127.0.0.1'],
  'loopback6.attacker.test': ['::1'],
  'zero.attacker.test': ['0.0.0.0'],
  'metadata.attacker.test': ['169.254.169.254'],
  'ecs-metadata.attacker.test': ['169.254.170.2'],
  'aws-metadata6.attacker.test': ['fd00:ec2::254'],
  'ten.attacker.test': ['10.0.0.1'],
  'rfc1918-172.attacker.test': ['172.16.5.4'],
  'rfc1918-192.attacker.test': ['192.168.0.1'],
  'cgnat.attacker.test': ['100.64.0.1'],
  'mapped.attacker.test': ['::ffff:127.0.0.1'],
  'linklocal6.attacker.test': ['fe80::1'],
  'ula.attacker.test': ['fc00::1'],
  'many-private.attacker.test': ['10.1.1.1', '127.0.0.1', '::1', '192.168.1.1'],
  '127.0.0.1.nip.io': ['127.0.0.1'],
  'localtest.me': ['127.0.0.1'],
  'localhost.attacker.test': ['127.0.0.1'],
  'customer1.app.localhost': ['127.0.0.1'],
};

const resolve: Resolver = (hostname, options, callback) => {
  const name = hostname.replace(/\.$/, '').toLowerCase();
  if (isIP(name) || name === 'localhost') return loopbackOnlyResolver(hostname, options, callback);
  const answer = NAMES[name];
  if (!answer) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
  callback(
    null,
    answer.map((address) => ({ address, family: isIP(address) })),
  );
};

function payloads(): string[] {
  const p = port;
  const loopbackLiterals = [
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '127.000.000.001',
    '0177.0.0.1',
    '0177.0000.0000.0001',
    '0x7f.0.0.1',
    '0x7f.0x0.0x0.0x1',
    '0x7f000001',
    '0X7F000001',
    '2130706433',
    '017700000001',
    '0x7f.1',
    '127.255.255.254',
    '127.0.0.1.',
    '0',
    '0.0.0.0',
    '0x0',
    '00000',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::ffff:0.0.0.0]',
    '[::]',
    '[::127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::]',
    '[fe80::1]',
    '[fc00::1]',
    '[fd12:3456::1]',
    'localhost',
    'LOCALHOST',
    'localhost.',
    '①②⑦.⓪.⓪.①',
    '127。0。0。1',
    '%31%32%37.0.0.1',
  ];
  const privateAndMetadata = [
    '169.254.169.254',
    '0xa9fea9fe',
    '2852039166',
    '0251.0376.0251.0376',
    '169.254.170.2',
    '[::ffff:169.254.169.254]',
    '[::ffff:a9fe:a9fe]',
    '[fd00:ec2::254]',
    '10.0.0.1',
    '012.0.0.1',
    '0xa000001',
    '167772161',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.0.1',
    '3232235521',
    '100.64.0.1',
    '198.18.0.1',
    '192.0.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '[ff02::1]',
    '192.0.2.1',
  ];
  const names = Object.keys(NAMES);
  const urls = [...loopbackLiterals, ...privateAndMetadata, ...names].map((h) => `http://${h}:${p}/hook`);
  // Other shapes of the same targets: credentials, https, default port, path tricks.
  urls.push(
    `http://user:pass@127.0.0.1:${p}/`,
    `http://example.com@127.0.0.1:${p}/`,
    `https://127.0.0.1:${p}/`,
    `http://127.0.0.1:${p}#@example.com/`,
    `http://127.0.0.1:${p}\\@example.com/`,
    `HTTP://127.0.0.1:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://metadata.google.internal./computeMetadata/v1/',
  );
  return urls;
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    hits++;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

describe('SSRF guard (deployed mode) against bypass payloads', () => {
  it('refuses every payload, permanently, and the loopback receiver hears nothing', async () => {
    const urls = payloads();
    expect(urls.length).toBeGreaterThanOrEqual(60);
    const results = await Promise.all(
      urls.map(async (url) => ({ url, r: await postJson(url, '{}', { 'x-test': '1' }, { timeoutMs: 5000, targets: 'public', resolve }) })),
    );
    const through = results.filter(({ r }) => r.ok || r.status !== undefined);
    expect(through, 'answered by a server').toEqual([]);
    // Refused by the guard (or unusable as a URL): permanent, never a connection attempt that timed out.
    const notRefused = results.filter(({ r }) => !r.permanent && !/ENOTFOUND/.test(r.error ?? ''));
    expect(notRefused.map(({ url, r }) => `${url}: ${r.error}`)).toEqual([]);
    expect(hits).toBe(0);
  });

  it('follows no redirect: a 307 to the loopback receiver is a failure and the receiver hears nothing', async () => {
    const redirector = createServer((req, res) => {
      req.resume();
      res.writeHead(307, { location: `http://127.0.0.1:${port}/hook` }).end();
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    try {
      const rport = (redirector.address() as AddressInfo).port;
      // Private targets allowed here only so that the redirector itself is reachable.
      const r = await postJson(`http://127.0.0.1:${rport}/`, '{}', {}, { timeoutMs: 5000, targets: 'loopback', resolve });
      expect(r).toMatchObject({ ok: false, status: 307 });
      expect(hits).toBe(0);
    } finally {
      await new Promise<void>((r) => redirector.close(() => r()));
    }
  });

  it('the receiver does hear a request when private targets are allowed (the local runtime), so silence above means refusal', async () => {
    const r = await postJson(`http://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 5000, targets: 'loopback', resolve });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(hits).toBe(1);
  });
});
