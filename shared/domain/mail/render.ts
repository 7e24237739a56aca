import type { Mail } from '#shared/model/mail.ts';

// The mails' text: Chatwoot's conversation transcript (ConversationReplyMailer#conversation_transcript and its
// view: each chat message's sender in bold, its content, its attachments as links, its time in the inbox's time
// zone) and devise's reset password instructions (Chatwoot's copy of devise's view and English strings).
// Pure functions, each mail as HTML and as plain text.

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const layout = (body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>` +
  `<body style="font-family: -apple-system, system-ui, sans-serif; font-size: 14px; color: #1f2d3d; margin: 0; padding: 24px;">` +
  `<table role="presentation" style="max-width: 600px; width: 100%; border-collapse: collapse;">${body}</table></body></html>`;

/** Ruby's `strftime('%b %d, %I:%M %p %Z')` of a Unix time in a time zone (UTC when it is not one). */
export function transcriptTime(unixSeconds: number, timeZone: string | null | undefined): string {
  const fmt = (tz: string) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      month: 'short',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hour12: true,
      timeZoneName: 'short',
    }).formatToParts(new Date(unixSeconds * 1000));
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = fmt(timeZone || 'UTC');
  } catch {
    parts = fmt('UTC');
  }
  const p = (t: Intl.DateTimeFormatPartTypes) => parts.find((x) => x.type === t)?.value ?? '';
  return `${p('month')} ${p('day')}, ${p('hour')}:${p('minute')} ${p('dayPeriod').toUpperCase()} ${p('timeZoneName')}`;
}

export interface TranscriptLine {
  sender: string;
  content: string | null;
  attachments: { name: string; url: string }[];
  created_at: number;
}

export const TRANSCRIPT_SUBJECT = 'Conversation Transcript';

/** `[#<display id>] Conversation Transcript`, one block per chat message, oldest first. */
export function transcriptMail(m: {
  id: string;
  to: string;
  displayId: number;
  timeZone: string | null | undefined;
  lines: TranscriptLine[];
}): Mail {
  const html = m.lines
    .map((l) => {
      const content = l.content ? `<p>${escapeHtml(l.content).replace(/\r?\n/g, '<br>')}</p>` : '';
      const files = l.attachments.length
        ? `<p>Attachments:</p>${l.attachments.map((a) => `<p><a href="${escapeHtml(a.url)}" target="_blank">${escapeHtml(a.name)}</a></p>`).join('')}`
        : '';
      return (
        `<tr><td><b>${escapeHtml(l.sender)}</b></td></tr>` +
        `<tr><td style="padding-bottom: 32px;">${content}${files}` +
        `<p style="font-size: 90%; color: #899096; margin-top: -8px; margin-bottom: 0px;">${escapeHtml(transcriptTime(l.created_at, m.timeZone))}</p></td></tr>`
      );
    })
    .join('');
  const text = m.lines
    .map((l) =>
      [
        l.sender,
        ...(l.content ? [l.content] : []),
        ...(l.attachments.length ? ['Attachments:', ...l.attachments.map((a) => `${a.name}: ${a.url}`)] : []),
        transcriptTime(l.created_at, m.timeZone),
      ].join('\n'),
    )
    .join('\n\n');
  return {
    id: m.id,
    kind: 'conversation_transcript',
    to: m.to,
    subject: `[#${m.displayId}] ${TRANSCRIPT_SUBJECT}`,
    html: layout(html),
    text: `${text}\n`,
  };
}

export const RESET_SUBJECT = 'Reset password instructions';

/** Chatwoot's `frontend_url('auth/password/edit', reset_password_token: token)`. */
export const resetLink = (frontendUrl: string, token: string) =>
  `${frontendUrl.replace(/\/$/, '')}/app/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`;

export function passwordResetMail(m: { id: string; to: string; token: string; frontendUrl: string }): Mail {
  const link = resetLink(m.frontendUrl, m.token);
  const greeting = `Hello ${m.to}!`;
  const info = 'Someone has requested a link to change your password. You can do this through the link below.';
  const ignore = "If you didn't request this, please ignore this email.";
  const noChange = "Your password won't change until you access the link above and create a new one.";
  const html =
    `<tr><td><p>${escapeHtml(greeting)}</p><p>${escapeHtml(info)}</p>` +
    `<p><a href="${escapeHtml(link)}" class="btn">Change my password</a></p>` +
    `<p class="mt-4">${escapeHtml(ignore)}</p><p>${escapeHtml(noChange)}</p></td></tr>`;
  const text = `${greeting}\n\n${info}\n\nChange my password: ${link}\n\n${ignore}\n${noChange}\n`;
  return { id: m.id, kind: 'password_reset', to: m.to, subject: RESET_SUBJECT, html: layout(html), text };
}

export const CONTACTS_EXPORT_SUBJECT = "Your contact's export file is available to download.";

/** Chatwoot's AccountNotificationMailer#contact_export_complete: the link to the export. */
export function contactsExportMail(m: { id: string; to: string; url: string }): Mail {
  const html = `<tr><td><p>Your contacts export is ready.</p><p><a href="${escapeHtml(m.url)}">Download the export file</a></p></td></tr>`;
  return {
    id: m.id,
    kind: 'contacts_export',
    to: m.to,
    subject: CONTACTS_EXPORT_SUBJECT,
    html: layout(html),
    text: `Your contacts export is ready.\n\nDownload the export file: ${m.url}\n`,
  };
}

export const CONTACTS_IMPORT_SUBJECT = 'Contact Import Completed';

/**
 * Chatwoot's AccountNotificationMailer#contact_import_complete: the counts (listed contacts imported, contacts
 * created without an email, phone number or identifier, refused rows, all rows) and a link: to the failed records
 * when rows were refused, else to the contacts page.
 */
export function contactsImportMail(m: {
  id: string;
  to: string;
  url: string;
  total_records: number;
  processed_records: number;
  non_identifiable_records: number;
  failed_records: number;
}): Mail {
  const lines: [string, number, string][] = [
    [
      'Contacts imported successfully',
      m.processed_records - m.non_identifiable_records,
      'These contacts are visible in your contacts list and can be used for conversations.',
    ],
  ];
  if (m.non_identifiable_records > 0) {
    lines.push([
      'Contacts created but not visible',
      m.non_identifiable_records,
      "These contacts were created but have no email, phone number or identifier, so they won't appear in your contacts list until you add one.",
    ]);
  }
  if (m.failed_records > 0) {
    lines.push(['Contacts that failed to import', m.failed_records, 'These contacts had validation errors and could not be imported.']);
  }
  const link =
    m.failed_records > 0
      ? ['to download the failed records and see specific error messages', 'Download the failed records']
      : ['to view the imported contacts', 'View the contacts'];
  const html =
    `<tr><td><p>Hello,</p><p>Your contact import has been completed. Here's a summary of the results:</p>` +
    lines.map(([label, n, note]) => `<p><strong>${escapeHtml(label)}:</strong> ${n}</p><p><em>${escapeHtml(note)}</em></p>`).join('') +
    `<p><strong>Total contacts processed:</strong> ${m.total_records}</p>` +
    `<p>Click <a href="${escapeHtml(m.url)}" target="_blank">here</a> ${escapeHtml(link[0])}.</p></td></tr>`;
  const text =
    `Hello,\n\nYour contact import has been completed. Here's a summary of the results:\n\n` +
    lines.map(([label, n, note]) => `${label}: ${n}\n${note}\n\n`).join('') +
    `Total contacts processed: ${m.total_records}\n\n${link[1]}: ${m.url}\n`;
  return { id: m.id, kind: 'contacts_import', to: m.to, subject: CONTACTS_IMPORT_SUBJECT, html: layout(html), text };
}
