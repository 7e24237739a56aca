import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTACTS_EXPORT_SUBJECT } from '#shared/domain/mail/render.ts';
import { overrideEnv } from '../../support/env.ts';
import { expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { smtpReceiver } from '../../support/smtp.ts';
import { untilState } from '../../support/until.ts';

// POST contacts/export (Chatwoot's ContactsController#export and Account::ContactsExportJob, the n8n node's call):
// answered at once; the pipeline makes the CSV of the contacts the filter picks and mails the administrator who
// asked a link to it that expires.

describe('contacts export', { timeout: 120_000 }, () => {
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let restoreEnv: () => void;
  let s: SeededAccount;
  let adminEmail: string;
  const tag = unique('exp').toLowerCase();

  beforeAll(async () => {
    await runtime();
    smtp = await smtpReceiver();
    restoreEnv = overrideEnv({ SMTP_ADDRESS: smtp.host, SMTP_PORT: String(smtp.port) });
    s = await seedAccount();
    adminEmail = (await s.admin.api.get('/api/v1/profile')).body.email;
    const make = async (body: Record<string, unknown>, labels?: string[]) => {
      const res = await s.admin.api.post(`${s.base}/contacts`, body);
      if (res.status !== 200) throw new Error(res.text);
      const id = res.body.payload.contact.id as number;
      if (labels) await s.admin.api.post(`${s.base}/contacts/${id}/labels`, { labels });
      return id;
    };
    await make({ name: 'Ana, "the first"', email: `ana-${tag}@example.com`, phone_number: '+15550000001' }, ['vip']);
    await make({ name: 'Bo', email: `bo-${tag}@example.com`, custom_attributes: { plan: 'gold' } });
    await make({ name: 'Cy', phone_number: '+15550000003' });
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
  });

  /** Asks for an export and answers the CSV its mail links to. */
  async function exported(body: Record<string, unknown>): Promise<string> {
    const before = smtp.mails.length;
    const res = await s.admin.api.post(`${s.base}/contacts/export`, body);
    expect(res.status).toBe(200);
    const mails = await untilState(
      async () => smtp.mails.slice(before).filter((m) => m.envelopeTo.includes(adminEmail)),
      (ms) => ms.length >= 1,
    );
    const mail = mails[0]!;
    expect(mail.headers.subject).toBe(CONTACTS_EXPORT_SUBJECT);
    const link = /https?:\/\/\S+\/rails\/active_storage\/blobs\/redirect\/\S+\/contacts\.csv/.exec(mail.text)?.[0];
    expect(link).toBeDefined();
    const file = await fetch(link!);
    expect(file.status).toBe(200);
    return file.text();
  }

  it('the default columns (id, name, email, phone_number) of every listed contact, quoted as CSV', async () => {
    const csv = await exported({});
    const lines = csv.trimEnd().split('\n');
    expect(lines[0]).toBe('id,name,email,phone_number');
    expect(lines).toHaveLength(4);
    expect(csv).toContain(`"Ana, ""the first""",ana-${tag}@example.com,+15550000001`);
    expect(csv).toContain(',Cy,,+15550000003');
  });

  it('the columns asked for (unknown ones dropped) of the contacts the filter payload picks, or of a label', async () => {
    const filtered = await exported({
      column_names: ['email', 'custom_attributes', 'password'],
      payload: [{ attribute_key: 'email', filter_operator: 'contains', values: [`bo-${tag}`], query_operator: null }],
    });
    expect(filtered).toBe(`email,custom_attributes\nbo-${tag}@example.com,"{""plan"":""gold""}"\n`);
    const labelled = await exported({ column_names: 'name,email', label: 'vip' });
    expect(labelled).toBe(`name,email\n"Ana, ""the first""",ana-${tag}@example.com\n`);
  });

  it('administrators only; a bad filter is 422 and nothing is mailed', async () => {
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/export`, {}), 403);
    const bad = await s.admin.api.post(`${s.base}/contacts/export`, {
      payload: [{ attribute_key: 'nope', filter_operator: 'equal_to', values: ['x'] }],
    });
    expect(bad.status).toBe(422);
    expectErrorBody(await s.admin.api.post(`${s.base}/contacts/export`, { payload: 'all' }), 422);
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/contacts/export`, { label: { name: 'x' } }), 422))).toHaveProperty(
      'label',
    );
  });
});
