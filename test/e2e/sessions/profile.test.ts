import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { fromAddress, sessionClient, sessionHeadersOf } from './fixtures.ts';
import { download, SIGNED_LINK } from '../../support/files.ts';

const PASSWORD = 'Passw0rd!';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

// The machine running the suite may be busy: these wait on scrypt and on the pipeline.
describe('profile (PUT/PATCH /api/v1/profile, availability, avatar, active account)', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let other: SeededAccount;
  let baseUrl: string;
  let email: string;
  const signIn = async (password = PASSWORD) => {
    const res = await fromAddress(baseUrl).post('/auth/sign_in', { email, password });
    return res.status === 200 ? sessionClient(baseUrl, sessionHeadersOf(res)) : res;
  };
  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    s = await seedAccount();
    other = await seedAccount();
    email = (await s.agent.api.get('/api/v1/profile')).body.email;
  });

  it('updates name, display_name, message_signature and ui_settings (root key profile), with session headers', async () => {
    const me = (await signIn()) as ReturnType<typeof sessionClient>;
    const res = await me.put('/api/v1/profile', {
      profile: {
        name: 'Agent Smith',
        display_name: 'Smith',
        message_signature: '-- Smith',
        ui_settings: { is_contact_sidebar_open: false },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: s.agent.id,
      name: 'Agent Smith',
      display_name: 'Smith',
      available_name: 'Smith',
      message_signature: '-- Smith',
      ui_settings: { is_contact_sidebar_open: false },
      email,
    });
    const patched = await me.patch('/api/v1/profile', { display_name: '' });
    expect(patched.body).toMatchObject({ display_name: null, available_name: 'Agent Smith', message_signature: '-- Smith' });
    expect((await s.agent.api.get('/api/v1/profile')).body.name).toBe('Agent Smith');
    expect(fieldsOf(expectErrorBody(await me.put('/api/v1/profile', { profile: { name: '' } }), 422))).toEqual({ name: 'required' });
    expect(fieldsOf(expectErrorBody(await me.put('/api/v1/profile', { profile: { ui_settings: 'nope' } }), 422))).toHaveProperty(
      'ui_settings',
    );
    // An email another user holds is taken.
    const adminEmail = (await s.admin.api.get('/api/v1/profile')).body.email;
    expect(fieldsOf(expectErrorBody(await me.put('/api/v1/profile', { profile: { email: adminEmail } }), 422))).toEqual({ email: 'taken' });
    expectErrorBody(await client(baseUrl).put('/api/v1/profile', { profile: { name: 'x' } }), 401);
  });

  it('changes the password with the current one; other sessions end, this one and the API token stay', async () => {
    const fresh = await seedAccount();
    email = (await fresh.agent.api.get('/api/v1/profile')).body.email;
    const a = (await signIn()) as ReturnType<typeof sessionClient>;
    const b = (await signIn()) as ReturnType<typeof sessionClient>;
    const NEW = 'N3w-Passw0rd!';

    expect(
      fieldsOf(
        expectErrorBody(
          await a.put('/api/v1/profile', { profile: { current_password: 'wrong', password: NEW, password_confirmation: NEW } }),
          422,
        ),
      ),
    ).toEqual({
      current_password: 'invalid',
    });
    expect(
      fieldsOf(
        expectErrorBody(
          await a.put('/api/v1/profile', { profile: { current_password: PASSWORD, password: NEW, password_confirmation: 'other' } }),
          422,
        ),
      ),
    ).toEqual({
      password_confirmation: 'confirmation',
    });
    expect(
      fieldsOf(
        expectErrorBody(
          await a.put('/api/v1/profile', { profile: { current_password: PASSWORD, password: 'short', password_confirmation: 'short' } }),
          422,
        ),
      ),
    ).toHaveProperty('password');
    // Nothing changed so far: both sessions and the old password work.
    expect((await b.get(`${fresh.base}/conversations`)).status).toBe(200);

    const changed = await a.put('/api/v1/profile', { profile: { current_password: PASSWORD, password: NEW, password_confirmation: NEW } });
    expect(changed.status).toBe(200);
    expect(changed.body).not.toHaveProperty('password_hash');
    expect((await a.get(`${fresh.base}/conversations`)).status).toBe(200);
    expectErrorBody(await b.get(`${fresh.base}/conversations`), 401);
    expect((await fresh.agent.api.get(`${fresh.base}/conversations`)).status).toBe(200);
    expectErrorBody((await signIn(PASSWORD)) as never, 401);
    const again = (await signIn(NEW)) as ReturnType<typeof sessionClient>;
    expect((await again.get('/api/v1/profile')).body.email).toBe(email);
  });

  it('sets availability per account and the active account', async () => {
    const res = await s.agent.api.post('/api/v1/profile/availability', { profile: { availability: 'busy', account_id: s.accountId } });
    expect(res.status).toBe(200);
    expect(res.body.accounts.find((a: { id: number }) => a.id === s.accountId)).toMatchObject({
      availability: 'busy',
      availability_status: 'busy',
    });
    const agents = await s.admin.api.get(`${s.base}/agents`);
    expect(agents.body.find((a: { id: number }) => a.id === s.agent.id).availability_status).toBe('busy');
    expect(
      fieldsOf(
        expectErrorBody(
          await s.agent.api.post('/api/v1/profile/availability', { profile: { availability: 'away', account_id: s.accountId } }),
          422,
        ),
      ),
    ).toEqual({
      availability: 'invalid',
    });
    // Not a member of that account.
    expectErrorBody(
      await s.agent.api.post('/api/v1/profile/availability', { profile: { availability: 'busy', account_id: other.accountId } }),
      404,
    );

    const active = await s.agent.api.put('/api/v1/profile/set_active_account', { profile: { account_id: s.accountId } });
    expect(active.status).toBe(200);
    expectErrorBody(await s.agent.api.put('/api/v1/profile/set_active_account', { profile: { account_id: other.accountId } }), 404);
    expectErrorBody(
      await client(baseUrl).post('/api/v1/profile/availability', { profile: { availability: 'busy', account_id: s.accountId } }),
      401,
    );
  });

  it('uploads an avatar (multipart profile[avatar]) and removes it', async () => {
    const form = new FormData();
    form.append('profile[name]', 'Pictured');
    form.append('profile[avatar]', new Blob([PNG], { type: 'image/png' }), 'me.png');
    const res = await s.admin.api.put('/api/v1/profile', form);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Pictured');
    expect(res.body.avatar_url).toMatch(SIGNED_LINK);
    expect(await download(res.body.avatar_url)).toEqual(PNG);

    const bad = new FormData();
    bad.append('profile[avatar]', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'a.txt');
    expect(fieldsOf(expectErrorBody(await s.admin.api.put('/api/v1/profile', bad), 422))).toHaveProperty('avatar');

    const removed = await s.admin.api.delete('/api/v1/profile/avatar');
    expect(removed.status).toBe(200);
    expect(removed.body.avatar_url).toBe('');
    expect((await s.admin.api.get('/api/v1/profile')).body.avatar_url).toBe('');
    expectErrorBody(await client(baseUrl).delete('/api/v1/profile/avatar'), 401);
  });
});
