import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { attachCableServer } from '../../../infra/local/cable-server.ts';
import { getConnection, listConnectionsAfter } from '#shared/db/repositories/cable.ts';
import { connectCable } from '../../support/cable.ts';
import { runtime, unique } from '../../support/runtime.ts';

// The local `/cable` server stops before the table does (the runtime's stop order): closing it waits
// until every open connection's removal is written, so none reaches a DynamoDB Local that is gone (the
// bench's shutdown printed ECONNREFUSED from such a late removal) and none is left behind.

describe('closing the local /cable server', () => {
  it('resolves only once every open connection has been removed from the table', async () => {
    await runtime();
    const since = Date.now() - 1000;
    const prefix = `${unique('close')}-`.replace(/[^\w-]/g, '');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cable = attachCableServer(server, { idPrefix: prefix });
    try {
      const { port } = server.address() as { port: number };
      const clients = await Promise.all([1, 2, 3].map(() => connectCable(`http://127.0.0.1:${port}`)));
      await Promise.all(clients.map((c) => c.waitFor((f) => f.type === 'welcome')));
      const ids = (await listConnectionsAfter(since)).map((c) => c.connection_id).filter((id) => id.startsWith(prefix));
      expect(ids).toHaveLength(3);

      await cable.close();
      expect(await Promise.all(ids.map((id) => getConnection(id)))).toEqual([undefined, undefined, undefined]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
