import { lookup as dnsLookup } from 'node:dns';
import { isIP, Socket } from 'node:net';
import { isLoopbackAddress } from '#shared/outbound/address-guard.ts';

/**
 * Refuses, and records, every connection of this process to an address that `allowed` refuses (by default
 * any but loopback): a test of a guard against private targets must not send a packet there even when the
 * guard fails. An IP literal is refused before connecting; a name's addresses are checked as its lookup
 * answers, before the socket gets them (by `lookup` when the caller gave none; the system's by default).
 * Fails closed on a call it does not understand.
 */
export function refuseConnections(
  allowed: (address: string) => boolean = isLoopbackAddress,
  opts: { lookup?: typeof dnsLookup } = {},
): { attempts: string[]; restore: () => void } {
  const attempts: string[] = [];
  const original = Socket.prototype.connect;
  const refuse = (socket: Socket, target: string) => {
    attempts.push(target);
    process.nextTick(() => socket.destroy(new Error(`test: connection to ${target} refused`)));
    return socket;
  };
  Socket.prototype.connect = function (this: Socket, ...args: any[]) {
    // net.createConnection passes its normalized [options, callback] as one array.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    // A path (a string, or a non-empty `path` option: http.request passes null) is a Unix socket.
    if (typeof first === 'string' || (typeof first === 'object' && first !== null && first.path))
      return original.apply(this, args as never);
    const options =
      typeof first === 'object' && first !== null ? first : typeof first === 'number' ? { port: first, host: args[1] } : undefined;
    if (!options) return refuse(this, `unknown connect(${String(first)})`);
    const host = String(options.host || 'localhost').replace(/^\[|\]$/g, '');
    if (isIP(host)) return allowed(host) ? original.apply(this, args as never) : refuse(this, host);
    if (options !== first) return refuse(this, `${host} (named without options)`);
    const lookup = first.lookup ?? opts.lookup ?? dnsLookup;
    first.lookup = (name: string, opts: any, cb: (...a: any[]) => void) =>
      lookup(name, opts, (err: Error | null, address: any, family?: number) => {
        const list: string[] = err ? [] : Array.isArray(address) ? address.map((a: { address: string }) => a.address) : [address];
        const outside = list.filter((a) => !allowed(a));
        if (!outside.length) return cb(err, address, family);
        attempts.push(`${name} -> ${outside.join(',')}`);
        cb(new Error(`test: connection to ${outside.join(',')} refused`));
      });
    return original.apply(this, args as never);
  } as typeof Socket.prototype.connect;
  return { attempts, restore: () => void (Socket.prototype.connect = original) };
}
