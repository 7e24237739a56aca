import { beforeAll, describe, expect, it } from 'vitest';
import { getContact } from '#shared/db/repositories/contacts.ts';
import { createContact } from '#shared/domain/contacts/service.ts';
import { identifyContact } from '#shared/domain/contacts/identify.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../support/runtime.ts';

// Chatwoot's ContactIdentifyAction as identifyContact runs it, rule by rule, on DynamoDB Local: which
// value folds the contact into the one holding it, which is left out, and the options the widget and
// the HMAC-mandatory inboxes use.

let phones = 0;
const phone = () => `+1444${String(Date.now() % 1_000_000).padStart(6, '0')}${++phones % 10}`;

describe('identifyContact', () => {
  let s: SeededAccount;
  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
  });

  const make = async (fields: { name?: string; email?: string; phone_number?: string; identifier?: string } = {}) =>
    (await createContact(s.accountId, { name: fields.name ?? unique('c '), ...fields })).contact;
  const exists = async (id: number) => !!(await getContact(s.accountId, id, true));

  it('folds the contact into the holder of the identifier, then of the email, then of the phone', async () => {
    for (const field of ['identifier', 'email', 'phone_number'] as const) {
      const value = field === 'email' ? `${unique('e')}@x.test` : field === 'phone_number' ? phone() : unique('id-');
      const holder = await make({ name: 'Holder', [field]: value });
      const visitor = await make({ name: 'Visitor' });
      const after = await identifyContact(s.accountId, visitor, { [field]: value, name: 'New Name', custom_attributes: { a: { b: 1 } } });
      expect(after.id, field).toBe(holder.id);
      expect(after).toMatchObject({ [field]: value, name: 'New Name', custom_attributes: { a: { b: 1 } } });
      expect(await exists(visitor.id)).toBe(false);
    }
  });

  it('leaves out an email or phone whose holder has another identifier than the one sent or the contact’s own', async () => {
    const holder = await make({ email: `${unique('h')}@x.test`, phone_number: phone(), identifier: unique('h-') });
    const sent = await make();
    const a = await identifyContact(s.accountId, sent, {
      identifier: unique('me-'),
      email: holder.email!,
      phone_number: holder.phone_number!,
    });
    expect(a).toMatchObject({ id: sent.id, email: null, phone_number: null });
    const own = await make({ identifier: unique('own-') });
    const b = await identifyContact(s.accountId, own, { email: holder.email! });
    expect(b).toMatchObject({ id: own.id, email: null });
    // The holder's own identifier sent: folded into it.
    const same = await make();
    expect((await identifyContact(s.accountId, same, { identifier: holder.identifier!, email: holder.email! })).id).toBe(holder.id);
  });

  it('leaves out a phone whose holder has another email than the one sent', async () => {
    const holder = await make({ email: `${unique('p')}@x.test`, phone_number: phone() });
    const visitor = await make();
    const email = `${unique('v')}@x.test`;
    const after = await identifyContact(s.accountId, visitor, { email, phone_number: holder.phone_number! });
    expect(after).toMatchObject({ id: visitor.id, email, phone_number: null });
    // Without an email sent, the phone folds.
    expect((await identifyContact(s.accountId, await make(), { phone_number: holder.phone_number! })).id).toBe(holder.id);
  });

  it('identifierOnly: an email or phone another contact holds is left out, the identifier still joins', async () => {
    const holder = await make({ name: 'Holder', email: `${unique('o')}@x.test`, phone_number: phone() });
    const visitor = await make();
    const after = await identifyContact(
      s.accountId,
      visitor,
      { email: holder.email!, phone_number: holder.phone_number!, name: 'Mallory' },
      { identifierOnly: true },
    );
    expect(after).toMatchObject({ id: visitor.id, email: null, phone_number: null, name: 'Mallory' });
    expect(await getContact(s.accountId, holder.id, true)).toMatchObject({
      name: 'Holder',
      email: holder.email,
      phone_number: holder.phone_number,
    });
    const fresh = `${unique('f')}@x.test`;
    expect(await identifyContact(s.accountId, visitor, { email: fresh }, { identifierOnly: true })).toMatchObject({
      id: visitor.id,
      email: fresh,
    });

    const user = await make({ identifier: unique('u-') });
    const other = await make();
    expect((await identifyContact(s.accountId, other, { identifier: user.identifier! }, { identifierOnly: true })).id).toBe(user.id);
  });

  it('retainName: a contact the visitor was folded into keeps its name', async () => {
    const holder = await make({ name: 'Original', email: `${unique('r')}@x.test` });
    const after = await identifyContact(s.accountId, await make(), { email: holder.email!, name: 'Pre-chat Name' }, { retainName: true });
    expect(after).toMatchObject({ id: holder.id, name: 'Original' });
    const alone = await make({ name: 'Anon' });
    expect(
      await identifyContact(s.accountId, alone, { email: `${unique('n')}@x.test`, name: 'Named' }, { retainName: true }),
    ).toMatchObject({ id: alone.id, name: 'Named' });
  });
});
