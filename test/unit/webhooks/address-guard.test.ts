import { describe, expect, it } from 'vitest';
import { config } from '#shared/config.ts';
import {
  BlockedAddressError,
  guardedLookup,
  isAllowedTarget,
  isLoopbackAddress,
  isPublicAddress,
  type Resolver,
  type TargetPolicy,
} from '#shared/outbound/address-guard.ts';
import { overrideEnv } from '../../support/env.ts';
import { postJson } from '#shared/outbound/send.ts';
import { backoffSeconds } from '#shared/events/deliver.ts';

describe('webhook address guard', () => {
  it('refuses private, loopback, link-local, metadata and other non-public addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
    ]) {
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
    const literal = await postJson('http://127.0.0.1:9/x', '{}', {}, { timeoutMs: 10_000, targets: 'public' });
    expect(literal).toMatchObject({ ok: false, permanent: true });
    const named = await postJson('http://localhost:9/x', '{}', {}, { timeoutMs: 10_000, targets: 'public', resolve });
    expect(named, JSON.stringify(named)).toMatchObject({ ok: false, permanent: true });
    expect(named.error).toContain('no public address');
    const metadata = await postJson('http://[::ffff:169.254.169.254]/latest', '{}', {}, { timeoutMs: 10_000, targets: 'public' });
    expect(metadata).toMatchObject({ ok: false, permanent: true });
  });

  it('allows loopback only under the loopback policy, any address only under the private one', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(ip), ip).toBe(true);
    for (const ip of ['0.0.0.0', '10.0.0.1', '::', '::ffff:10.0.0.1', '169.254.169.254', 'localhost'])
      expect(isLoopbackAddress(ip), ip).toBe(false);
    const decisions = (policy: TargetPolicy) =>
      Object.fromEntries(
        [
          '8.8.8.8',
          '127.0.0.1',
          '::1',
          '10.1.2.3',
          '192.168.1.20',
          '172.16.0.1',
          '169.254.169.254',
          '::ffff:169.254.169.254',
          'fd00:ec2::254',
          '0.0.0.0',
        ].map((ip) => [ip, isAllowedTarget(ip, policy)]),
      );
    const base = {
      '8.8.8.8': true,
      '127.0.0.1': false,
      '::1': false,
      '10.1.2.3': false,
      '192.168.1.20': false,
      '172.16.0.1': false,
      '169.254.169.254': false,
      '::ffff:169.254.169.254': false,
      'fd00:ec2::254': false,
      '0.0.0.0': false,
    };
    expect(decisions('public')).toEqual(base);
    expect(decisions('loopback')).toEqual({ ...base, '127.0.0.1': true, '::1': true });
    expect(decisions('private')).toEqual(Object.fromEntries(Object.keys(base).map((ip) => [ip, true])));
  });

  it('takes its policy from the environment: loopback for the local runtime, private only when a developer opts in', async () => {
    // Names answered by a stand-in, as a LAN's or a cloud's DNS would: the lookup's decision is checked, and
    // nothing connects anywhere.
    const resolve: Resolver = (host, _opts, callback) =>
      callback(null, [
        {
          address:
            ({ 'lan.test': '192.168.1.20', 'intranet.test': '10.20.30.40', 'metadata.test': '169.254.169.254' } as Record<string, string>)[
              host
            ] ?? '127.0.0.1',
          family: 4,
        },
      ]);
    const decide = (policy: TargetPolicy, host: string) =>
      new Promise<string>((done) =>
        guardedLookup(policy, resolve)(host, {}, (err, address) => done(err ? `${err.name}: ${err.message}` : String(address))),
      );
    const cases = [
      [{ ALLOW_LOOPBACK_WEBHOOK_TARGETS: undefined, ALLOW_PRIVATE_WEBHOOK_TARGETS: undefined }, 'public'],
      [{ ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true', ALLOW_PRIVATE_WEBHOOK_TARGETS: undefined }, 'loopback'],
      [{ ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true', ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' }, 'loopback'],
      [{ ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true', ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' }, 'private'],
    ] as const;
    for (const [env, policy] of cases) {
      const restore = overrideEnv({ TABLE_NAME: process.env.TABLE_NAME ?? 'unit', ...env });
      try {
        expect(config().webhookTargets, JSON.stringify(env)).toBe(policy);
      } finally {
        restore();
      }
    }
    const blocked = (host: string) => `${BlockedAddressError.name}: Refused to deliver to ${host}: it has no public address`;
    for (const host of ['lan.test', 'intranet.test', 'metadata.test']) {
      expect(await decide('loopback', host)).toBe(blocked(host));
      expect(await decide('public', host)).toBe(blocked(host));
    }
    expect(await decide('loopback', 'localhost')).toBe('127.0.0.1');
    expect(await decide('public', 'localhost')).toBe(blocked('localhost'));
    expect(await decide('private', 'lan.test')).toBe('192.168.1.20');
    expect(await decide('private', 'metadata.test')).toBe('169.254.169.254');
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
