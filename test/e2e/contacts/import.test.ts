import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { queryItems, queryPrefix } from '#shared/db/repositories/common.ts';
import { INDEXES } from '#shared/db/table.ts';
import { getContacts } from '#shared/db/repositories/contacts.ts';
import { getContactImport } from '#shared/db/repositories/contact-imports.ts';
import { CONTACTS_IMPORT_SUBJECT } from '#shared/domain/mail/render.ts';
import type { ContactImportRecord } from '#shared/model/contact-imports.ts';
import { overrideEnv } from '../../support/env.ts';
import { startReceiver, type Receiver } from '../../support/receiver.ts';
import { expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { smtpReceiver } from '../../support/smtp.ts';
import { untilState } from '../../support/until.ts';

// POST contacts/import (Chatwoot's ContactsController#import, DataImportJob and DataImport::ContactManager), over
// real HTTP: answered at once; the pipeline imports the rows in chunks (two rows a chunk here, so a file takes
// several) through the contacts service, raising contact_created/contact_updated like any contact write, and mails
// the administrator the result with the failed records' link. A chunk replayed after a crash imports nothing twice.

describe('contacts import', { timeout: 120_000 }, () => {
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let hook: Receiver;
  let restoreEnv: () => void;
  let s: SeededAccount;
  let adminEmail: string;
  let agentEmail: string;
  const tag = unique('imp').toLowerCase();
  const domain = `acme-${tag}.com`;
  const secondAdmin = `second-${tag}@example.com`;
  let companyId: number;
  let oldId: number;

  beforeAll(async () => {
    await runtime();
    smtp = await smtpReceiver();
    hook = await startReceiver();
    restoreEnv = overrideEnv({ SMTP_ADDRESS: smtp.host, SMTP_PORT: String(smtp.port), CONTACT_IMPORT_CHUNK_ROWS: '2' });
    s = await seedAccount();
    adminEmail = (await s.admin.api.get('/api/v1/profile')).body.email;
    agentEmail = (await s.agent.api.get('/api/v1/profile')).body.email;
    const second = await s.admin.api.post(`${s.base}/agents`, { name: 'Second admin', email: secondAdmin, role: 'administrator' });
    expect(second.status).toBe(200);
    const webhook = await s.admin.api.post(`${s.base}/webhooks`, { url: hook.url, subscriptions: ['contact_created', 'contact_updated'] });
    expect(webhook.status).toBe(200);
    const company = await s.admin.api.post(`${s.base}/companies`, { name: 'Acme', domain });
    expect(company.status).toBe(200);
    companyId = company.body.payload.id;
    const old = await s.admin.api.post(`${s.base}/contacts`, {
      name: 'Old',
      email: `old-${tag}@example.com`,
      custom_attributes: { plan: 'silver', since: '2020' },
    });
    expect(old.status).toBe(200);
    oldId = old.body.payload.contact.id;
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
    await hook?.close();
  });

  const form = (csv: string | Buffer, name = 'contacts.csv') => {
    const f = new FormData();
    f.append('import_file', new Blob([csv], { type: 'text/csv' }), name);
    return f;
  };

  /** The import jobs of the account, newest last. */
  const jobs = async () =>
    (await queryPrefix({ pk: keys.contactImportsOf(s.accountId) }, 'IMPORT#'))
      .map((i) => i as unknown as ContactImportRecord)
      .sort((a, b) => a.created_at - b.created_at);

  const mailsToAdmin = () => smtp.mails.filter((m) => m.envelopeTo.includes(adminEmail) && m.headers.subject === CONTACTS_IMPORT_SUBJECT);

  const findContact = async (q: string) => {
    const res = await s.admin.api.get(`${s.base}/contacts/search?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    return res.body.payload as any[];
  };

  it('creates and updates the rows’ contacts (events, company link), refuses the bad ones, mails the result with the failed records', async () => {
    const csv = [
      'Name,Email,Phone Number,identifier,Company,plan',
      `Ana,ana-${tag}@${domain},15550100${tag.length % 10}1,,Acme,gold`,
      `Old Renamed,OLD-${tag}@example.com,,,,platinum`,
      'Cy,,,,,',
      'Bad,not-an-email,,,,',
      `"Quoted, Name",,,crm-${tag},,`,
    ].join('\r\n');
    const before = mailsToAdmin().length;
    const res = await s.admin.api.post(`${s.base}/contacts/import`, form(csv));
    expect(res.status).toBe(200);
    expect(res.text).toBe('');

    const [mail] = await untilState(
      async () => mailsToAdmin().slice(before),
      (ms) => ms.length >= 1,
      60_000,
    );
    // Every administrator of the account gets it (Chatwoot's admin_emails), an agent does not.
    const to = (email: string) => smtp.mails.filter((m) => m.envelopeTo.includes(email) && m.headers.subject === CONTACTS_IMPORT_SUBJECT);
    expect(
      await untilState(
        async () => to(secondAdmin),
        (ms) => ms.length === 1,
      ),
    ).toHaveLength(1);
    expect(to(agentEmail)).toEqual([]);
    expect(mail.text).toContain('Contacts imported successfully: 3');
    expect(mail.text).toContain('Contacts created but not visible: 1');
    expect(mail.text).toContain('Contacts that failed to import: 1');
    expect(mail.text).toContain('Total contacts processed: 5');
    const link = /https?:\/\/\S+\/rails\/active_storage\/blobs\/redirect\/\S+\/\d{8}_contacts\.csv/.exec(mail.text)?.[0];
    expect(link).toBeDefined();
    const failed = await fetch(link!);
    expect(failed.status).toBe(200);
    expect(await failed.text()).toBe(
      'Name,Email,Phone Number,identifier,Company,plan,errors\nBad,not-an-email,,,,,Email is not a valid email address\n',
    );

    const [job] = await jobs();
    expect(job).toMatchObject({
      status: 'completed',
      total_records: 5,
      cursor: 5,
      processed_records: 4,
      non_identifiable_records: 1,
      failed_records: 1,
    });

    // Created: the phone number got its `+`, the company column is the company name, the email's domain the company link.
    const [ana] = await findContact(`ana-${tag}`);
    expect(ana).toMatchObject({
      name: 'Ana',
      email: `ana-${tag}@${domain}`,
      phone_number: `+15550100${tag.length % 10}1`,
      additional_attributes: { company_name: 'Acme' },
      custom_attributes: { company: 'Acme', plan: 'gold' },
    });
    expect((await s.admin.api.get(`${s.base}/contacts/${ana.id}`)).body.payload.company_id).toBe(companyId);
    expect((await s.admin.api.get(`${s.base}/companies/${companyId}`)).body.payload.contacts_count).toBe(1);
    // Updated, found by its email (any case): given fields replace, custom attributes merge.
    const old = (await s.admin.api.get(`${s.base}/contacts/${oldId}`)).body.payload;
    expect(old).toMatchObject({ name: 'Old Renamed', custom_attributes: { plan: 'platinum', since: '2020' } });
    const [quoted] = await findContact(`crm-${tag}`);
    expect(quoted).toMatchObject({ name: 'Quoted, Name', identifier: `crm-${tag}` });

    // The events of any contact write, delivered to the account's webhook.
    const events = await untilState(
      async () => hook.received.map((r) => r.json).filter((j) => j?.account?.id === s.accountId),
      (js) =>
        js.filter((j) => j.event === 'contact_created').length >= 4 && js.some((j) => j.event === 'contact_updated' && j.id === oldId),
    );
    const created = events.filter((j) => j.event === 'contact_created');
    expect(created.map((j) => j.name)).toEqual(expect.arrayContaining(['Ana', 'Cy', 'Quoted, Name']));
    expect(created.filter((j) => j.name === 'Cy')).toHaveLength(1);
  });

  it('a chunk replayed after a crash (its progress never recorded) creates, counts and mails nothing twice', async () => {
    const csv = `name,email\nDee,dee-${tag}@example.com\nEve\nFay,not-an-email\n`;
    const before = mailsToAdmin().length;
    // This import's job: the one not there before (ids are random, and two imports may share a second).
    const known = new Set((await jobs()).map((j) => j.id));
    expect((await s.admin.api.post(`${s.base}/contacts/import`, form(csv))).status).toBe(200);
    await untilState(
      async () => mailsToAdmin().slice(before),
      (ms) => ms.length >= 1,
      60_000,
    );
    const job = (await jobs()).find((j) => !known.has(j.id))!;
    expect(job).toMatchObject({ status: 'completed', processed_records: 2, non_identifiable_records: 1, failed_records: 1 });
    const eves = async () => hook.received.filter((r) => r.json?.event === 'contact_created' && r.json.name === 'Eve');
    await untilState(eves, (e) => e.length === 1);

    // As if the dispatcher had died after importing the rows but before recording any chunk: the job back at its
    // start, its refused rows gone. The change brings the first chunk (Dee, Eve) to the dispatcher again, then Fay's.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.contactImportFailures(s.accountId, job.id, 2) }));
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contactImport(s.accountId, job.id),
        UpdateExpression:
          'SET #s = :p, #c = :zero, processed_records = :zero, non_identifiable_records = :zero, failed_records = :zero REMOVE failed_key',
        ExpressionAttributeNames: { '#s': 'status', '#c': 'cursor' },
        ExpressionAttributeValues: { ':p': 'processing', ':zero': 0 },
      }),
    );
    const again = await untilState(
      () => getContactImport(s.accountId, job.id),
      (j) => j?.status === 'completed',
    );
    expect(again).toMatchObject({ cursor: 3, processed_records: 2, non_identifiable_records: 1, failed_records: 1 });
    // Eve (no email, phone or identifier) was created once: her row's mark stopped the second creation.
    const unlisted = await queryItems({
      IndexName: INDEXES.gsi2.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': INDEXES.gsi2.pk },
      ExpressionAttributeValues: { ':p': keys.unlistedContactsOf(s.accountId).gsi2pk },
    });
    const named = await getContacts(
      s.accountId,
      unlisted.map((i) => Number(i.id)),
    );
    expect(named.filter((c) => c?.name === 'Eve')).toHaveLength(1);
    const [dee] = await findContact(`dee-${tag}`);
    expect(dee.name).toBe('Dee');
    expect(await eves()).toHaveLength(1);
    // The result was mailed once (the request is named by the import).
    expect(mailsToAdmin().slice(before)).toHaveLength(1);
  });

  it('refuses what is no CSV of contacts with 422 at once, and nothing is imported', async () => {
    const jobsBefore = (await jobs()).length;
    const blank = expectErrorBody(await s.admin.api.post(`${s.base}/contacts/import`, {}), 422) as { error?: string } & ReturnType<
      typeof expectErrorBody
    >;
    expect(blank.error).toBe('File is blank');
    expect(fieldsOf(blank)).toEqual({ import_file: 'blank' });
    expect((await s.admin.api.post(`${s.base}/contacts/import`, { import_file: '' })).body).toMatchObject({ error: 'File is blank' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/contacts/import`, { import_file: 'a,b' }), 422))).toEqual({
      import_file: 'invalid',
    });
    const reasons: [string | Buffer, RegExp][] = [
      [Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]), /not UTF-8/],
      ['name,email\n"open,a@b.c\n', /not valid CSV/],
      ['ana@x.io,+15550001\n', /header row/],
      ['name,email\n', /no rows/],
      [`email\n${Array.from({ length: 10_001 }, (_, i) => `u${i}@x.io`).join('\n')}\n`, /more than 10000 rows/],
    ];
    for (const [csv, reason] of reasons) {
      const body = expectErrorBody(await s.admin.api.post(`${s.base}/contacts/import`, form(csv)), 422);
      expect(body.errors[0]).toMatchObject({ field: 'import_file', message: expect.stringMatching(reason) });
    }
    expect(await jobs()).toHaveLength(jobsBefore);
  });

  it('administrators only', async () => {
    expectErrorBody(await s.agent.api.post(`${s.base}/contacts/import`, form('name\nX\n')), 403);
  });

  it('takes the RenatoAscencio n8n node’s exact call: its httpRequest sends the file as JSON (Node’s Buffer JSON)', async () => {
    // nodes/Chatwoot/Chatwoot.node.ts (v0.8.3), contact.import: `this.helpers.httpRequest({method: 'POST', url:
    // `${baseUrl}/api/v1/accounts/${accountId}/contacts/import`, headers: {api_access_token}, body: {import_file:
    // {value: buffer, options: {filename, contentType}}}, json: true})`: a plain-object body goes out as JSON.
    const buffer = Buffer.from(`name,email\nNode Row,n8n-${tag}@example.com\n`, 'utf8');
    const before = mailsToAdmin().length;
    const res = await s.admin.api.post(
      `${s.base}/contacts/import`,
      { import_file: { value: buffer, options: { filename: 'contacts.csv', contentType: 'text/csv' } } },
      { accept: 'application/json' },
    );
    expect(res.status).toBe(200);
    await untilState(
      async () => mailsToAdmin().slice(before),
      (ms) => ms.length >= 1,
      60_000,
    );
    const [row] = await findContact(`n8n-${tag}`);
    expect(row).toMatchObject({ name: 'Node Row', email: `n8n-${tag}@example.com` });
  });
});
