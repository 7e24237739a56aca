import { describe, expect, it } from 'vitest';
import {
  CONTACTS_IMPORT_SUBJECT,
  contactsImportMail,
  passwordResetMail,
  resetLink,
  transcriptMail,
  transcriptTime,
} from '#shared/domain/mail/render.ts';
import { senderAddress } from '#shared/outbound/mail.ts';
import { changeOf } from '#shared/events/forward.ts';
import type { DynamoDBRecord } from 'aws-lambda';

describe('mail rendering', () => {
  it("formats times as Ruby's '%b %d, %I:%M %p %Z' in the inbox's zone, UTC when the zone is unknown", () => {
    const t = Date.UTC(2026, 0, 5, 15, 4) / 1000;
    expect(transcriptTime(t, 'UTC')).toBe('Jan 05, 03:04 PM UTC');
    expect(transcriptTime(t, 'Asia/Kolkata')).toMatch(/^Jan 05, 08:34 PM (GMT\+5:30|IST)$/);
    expect(transcriptTime(t, 'Not/AZone')).toBe('Jan 05, 03:04 PM UTC');
    expect(transcriptTime(t, null)).toBe('Jan 05, 03:04 PM UTC');
  });

  it('escapes content and links in the transcript and lists attachments', () => {
    const mail = transcriptMail({
      id: 'm1',
      to: 'a@example.com',
      displayId: 42,
      timeZone: 'UTC',
      lines: [
        {
          sender: 'Ann & Co',
          content: '<script>x</script>\nline 2',
          attachments: [{ name: 'a"b.pdf', url: 'https://x.test/f?a=1&b=2' }],
          created_at: 0,
        },
      ],
    });
    expect(mail.subject).toBe('[#42] Conversation Transcript');
    expect(mail.html).toContain('<b>Ann &amp; Co</b>');
    expect(mail.html).toContain('&lt;script&gt;x&lt;/script&gt;<br>line 2');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('<a href="https://x.test/f?a=1&amp;b=2" target="_blank">a&quot;b.pdf</a>');
    expect(mail.text).toBe('Ann & Co\n<script>x</script>\nline 2\nAttachments:\na"b.pdf: https://x.test/f?a=1&b=2\nJan 01, 12:00 AM UTC\n');
  });

  it("links the dashboard's reset page with the token", () => {
    expect(resetLink('https://app.example.com/', 'a+b/c')).toBe(
      'https://app.example.com/app/auth/password/edit?reset_password_token=a%2Bb%2Fc',
    );
    const mail = passwordResetMail({ id: 'r', to: 'u@example.com', token: 'tok', frontendUrl: 'https://app.example.com' });
    expect(mail.subject).toBe('Reset password instructions');
    expect(mail.text).toContain('Change my password: https://app.example.com/app/auth/password/edit?reset_password_token=tok');
  });

  it('takes the address out of a sender with a name', () => {
    expect(senderAddress('Chatwoot <accounts@chatwoot.com>')).toBe('accounts@chatwoot.com');
    expect(senderAddress(' help@example.com ')).toBe('help@example.com');
  });

  it('forwards a mail request only when it is written (not when it expires)', () => {
    const rec = (eventName: 'INSERT' | 'REMOVE'): DynamoDBRecord => {
      const image = { pk: { S: 'MAIL#x' }, sk: { S: 'MAIL' }, type: { S: 'mail' }, kind: { S: 'password_reset' } };
      return {
        eventID: `e-${eventName}`,
        eventName,
        dynamodb: { Keys: { pk: image.pk, sk: image.sk }, ...(eventName === 'INSERT' ? { NewImage: image } : { OldImage: image }) },
      } as DynamoDBRecord;
    };
    expect(changeOf(rec('INSERT'))).toMatchObject({ type: 'mail', action: 'INSERT', pk: 'MAIL#x' });
    expect(changeOf(rec('REMOVE'))).toBeUndefined();
  });

  it('the contacts import result: its counts, the failed records link when rows failed, else the contacts page', () => {
    const base = { id: 'r', to: 'a@b.c', total_records: 10, processed_records: 8, non_identifiable_records: 2 };
    const failed = contactsImportMail({ ...base, failed_records: 2, url: 'https://x.example/f.csv?a=1&b=2' });
    expect(failed.subject).toBe(CONTACTS_IMPORT_SUBJECT);
    expect(failed.text).toContain('Contacts imported successfully: 6\n');
    expect(failed.text).toContain('Contacts created but not visible: 2\n');
    expect(failed.text).toContain('Contacts that failed to import: 2\n');
    expect(failed.text).toContain('Total contacts processed: 10\n');
    expect(failed.text).toContain('Download the failed records: https://x.example/f.csv?a=1&b=2\n');
    expect(failed.html).toContain('href="https://x.example/f.csv?a=1&amp;b=2"');
    const clean = contactsImportMail({
      ...base,
      processed_records: 10,
      non_identifiable_records: 0,
      failed_records: 0,
      url: 'https://x.example/c',
    });
    expect(clean.text).not.toMatch(/not visible|failed to import/);
    expect(clean.text).toContain('View the contacts: https://x.example/c\n');
  });

  it('puts a contacts import job on the events queue while it runs, not its removal', () => {
    const rec = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE'): DynamoDBRecord => {
      const image = { pk: { S: 'IMPORTS#1' }, sk: { S: 'IMPORT#x' }, type: { S: 'contact_import' } };
      return {
        eventID: `i-${eventName}`,
        eventName,
        dynamodb: { Keys: { pk: image.pk, sk: image.sk }, ...(eventName === 'REMOVE' ? { OldImage: image } : { NewImage: image }) },
      } as DynamoDBRecord;
    };
    expect(changeOf(rec('INSERT'))).toMatchObject({ type: 'contact_import', action: 'INSERT' });
    expect(changeOf(rec('MODIFY'))).toMatchObject({ type: 'contact_import', action: 'MODIFY' });
    expect(changeOf(rec('REMOVE'))).toBeUndefined();
  });
});
