import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

// Deliveries never reach private, loopback, link-local, metadata or other non-public addresses when
// deployed; the local runtime lets them reach loopback (local receivers) and nothing else non-public unless
// the developer opts in (ALLOW_PRIVATE_WEBHOOK_TARGETS). The check runs on the address the socket actually connects to (resolved at send
// time),
// so a DNS answer that changes after validation cannot redirect a delivery. (IPv4-mapped IPv6 is
// unwrapped before the check: BlockList would match every IPv4 address against ::ffff:0:0/96.)

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // ::/96 holds ::, ::1 and the IPv4-compatible form (::127.0.0.1); 2002::/16 (6to4) embeds any IPv4 address.
  ['::', 96],
  ['64:ff9b::', 96],
  ['2002::', 16],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
    if (mapped) return isPublicAddress(mapped[1]);
    return !blocked.check(address, 'ipv6');
  }
  return !blocked.check(address, 'ipv4');
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** 127.0.0.0/8 and ::1 (also as IPv4-mapped IPv6): this machine, never a neighbour's. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
    if (mapped) return isLoopbackAddress(mapped[1]);
    return loopback.check(address, 'ipv6');
  }
  return loopback.check(address, 'ipv4');
}

/**
 * Which addresses a delivery may reach: public ones only (deployed), loopback as well (the local runtime),
 * or any (a developer's explicit opt-in, for a receiver on their network).
 */
export type TargetPolicy = 'public' | 'loopback' | 'private';

export function isAllowedTarget(address: string, policy: TargetPolicy): boolean {
  if (policy === 'private') return isIP(address) !== 0;
  return isPublicAddress(address) || (policy === 'loopback' && isLoopbackAddress(address));
}

export class BlockedAddressError extends Error {
  constructor(readonly host: string) {
    super(`Refused to deliver to ${host}: it has no public address`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** How names are resolved: the system resolver, or (tests) a stand-in that answers without the network. */
export type Resolver = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

let defaultResolver: Resolver = dnsLookup as unknown as Resolver;

/**
 * Replaces the resolver deliveries use when they name none (the test suite: one that answers literals and
 * `localhost` only, so no DNS query leaves the machine and none holds a libuv thread while a server is slow).
 */
export function setDefaultResolver(resolve: Resolver) {
  defaultResolver = resolve;
}

/** A `lookup` for http.request that only ever hands out the addresses the policy allows. */
export function guardedLookup(policy: TargetPolicy, resolve: Resolver = defaultResolver) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = (addresses as LookupAddress[]).filter((a) => isAllowedTarget(a.address, policy));
      if (!list.length) return callback(new BlockedAddressError(hostname) as NodeJS.ErrnoException, '');
      if (options.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}
