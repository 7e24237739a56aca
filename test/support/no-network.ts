import type { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { afterEach } from 'vitest';
import { isLoopbackAddress } from '#shared/outbound/address-guard.ts';
import { refuseConnections } from './connections.ts';
import { loopbackOnlyResolver } from './resolver.ts';

// The unit project's setup: its tests run without DynamoDB Local, the emulator or the network. A connection
// to anything but loopback is refused before a packet leaves, a name other than localhost is never looked
// up, and the test that tried fails, even when the code under test swallowed the error (a delivery that
// retries, a best-effort metric).

const GUARD = Symbol.for('chatwoot-serverless.no-network');
const holder = globalThis as { [GUARD]?: { take: () => string[] } };

/** Installs the guard once per process (the setup runs again for every file a worker runs). */
function guard(): { take: () => string[] } {
  if (holder[GUARD]) return holder[GUARD];
  const named: string[] = [];
  const lookup = ((name: string, options: any, callback: (...a: any[]) => void) => {
    const opts = typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : undefined };
    const cb = typeof options === 'function' ? options : callback;
    loopbackOnlyResolver(name, { all: true, family: opts.family }, (err: NodeJS.ErrnoException | null, list: LookupAddress[]) => {
      if (err) named.push(`${name} (looked up)`);
      if (opts.all) cb(err, list);
      else cb(err, list[0]?.address, list[0]?.family);
    });
  }) as typeof dnsLookup;
  const refused = refuseConnections(isLoopbackAddress, { lookup });
  return (holder[GUARD] = { take: () => [...refused.attempts.splice(0), ...named.splice(0)] });
}

const { take } = guard();

afterEach(() => {
  const tried = take();
  if (tried.length)
    throw new Error(
      `a unit test reached for the network (${tried.join(', ')}): it belongs in test/integration or test/e2e, or its dependency takes a stand-in`,
    );
});
