import { isIP } from 'node:net';
import type { Resolver } from '#shared/outbound/address-guard.ts';

/**
 * A resolver that never leaves the machine: IP literals answer themselves, `localhost` and its
 * subdomains answer the loopback addresses (as the hosts file and RFC 6761 do), every other name is
 * ENOTFOUND at once. The test setup makes it every delivery's default, so webhooks that tests point at
 * example.com cost no DNS query and no libuv thread.
 */
export const loopbackOnlyResolver: Resolver = (hostname, options, callback) => {
  const name = hostname.replace(/\.$/, '').toLowerCase();
  const literal = name.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(literal);
  const answer = (list: { address: string; family: number }[]) => {
    const wanted = list.filter((a) => !options.family || a.family === options.family);
    if (wanted.length) return queueMicrotask(() => callback(null, wanted));
    queueMicrotask(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []));
  };
  if (family) return answer([{ address: literal, family }]);
  if (name === 'localhost' || name.endsWith('.localhost'))
    return answer([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
  answer([]);
};
