import { describe, expect, it } from 'vitest';
import { expectErrorBody, runtime, seedAccount } from '../../support/runtime.ts';

// GET /agents: the users of the account, as agent JSON (docs/chatwoot.md#inbox-members-and-agent-json).

const ids = (agents: { id: number }[]) => agents.map((a) => a.id).sort((a, b) => a - b);

describe('agents', () => {
  it('lists the users of the account as agents', async () => {
    await runtime();
    const [s, other] = await Promise.all([seedAccount(), seedAccount()]);
    for (const api of [s.admin.api, s.agent.api]) {
      const res = await api.get(`${s.base}/agents`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([s.admin.id, s.agent.id].sort((a, b) => a - b));
      for (const a of res.body) {
        expect(a).toMatchObject({
          id: expect.any(Number),
          account_id: s.accountId,
          availability_status: expect.stringMatching(/^(online|offline|busy)$/),
          auto_offline: expect.any(Boolean),
          confirmed: expect.any(Boolean),
          email: expect.stringContaining('@'),
          available_name: expect.any(String),
          name: expect.any(String),
          role: a.id === s.admin.id ? 'administrator' : 'agent',
          thumbnail: expect.any(String),
        });
        expect('custom_role_id' in a).toBe(true);
      }
    }
    expectErrorBody(await other.admin.api.get(`${s.base}/agents`), 404);
  });
});
