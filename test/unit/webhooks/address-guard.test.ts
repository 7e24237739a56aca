import { describe, expect, it } from 'vitest';
import { isPublicAddress, type Resolver } from '../../../shared/webhooks/address-guard.ts';
import { postJson } from '../../../shared/webhooks/send.ts';
import { backoffSeconds } from '../../../shared/events/deliver.ts';

describe('webhook address guard', () => {
  it('refuses private, loopback, link-local, metadata and other non-public addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1']) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('refuses a loopback target before connecting when private targets are not allowed', async () => {
    // The refusal comes before any connection. Names are answered by a stand-in resolver, as localhost
    // resolves: the system resolver shares libuv's thread pool with the suite's password hashing and can
    // take longer than any timeout on a busy machine (a timeout answers as a transient failure).
    const resolve: Resolver = (_host, _opts, callback) =>
      callback(null, [
        { address: '::1', family: 6 },
        { address: '127.0.0.1', family: 4 },
      ]);
    const literal = await postJson('http://127.0.0.1:9/x', '{}', {}, { timeoutMs: 10_000, allowPrivate: false });
    expect(literal).toMatchObject({ ok: false, permanent: true });
    const named = await postJson('http://localhost:9/x', '{}', {}, { timeoutMs: 10_000, allowPrivate: false, resolve });
    expect(named, JSON.stringify(named)).toMatchObject({ ok: false, permanent: true });
    expect(named.error).toContain('no public address');
    const metadata = await postJson('http://[::ffff:169.254.169.254]/latest', '{}', {}, { timeoutMs: 10_000, allowPrivate: false });
    expect(metadata).toMatchObject({ ok: false, permanent: true });
  });

  it('backs off exponentially with jitter, capped at six hours', () => {
    expect(backoffSeconds(1, 30, 0)).toBe(15);
    expect(backoffSeconds(1, 30, 1)).toBe(30);
    expect(backoffSeconds(3, 30, 1)).toBe(120);
    expect(backoffSeconds(40, 30, 1)).toBe(6 * 3600);
    const samples = Array.from({ length: 50 }, () => backoffSeconds(5, 30));
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(240);
    expect(Math.max(...samples)).toBeLessThanOrEqual(480);
  });
});
