import type { ImapFlow } from 'imapflow';
import type { Transporter } from 'nodemailer';
import { config } from '#shared/config.ts';
import { guardedLookup } from './address-guard.ts';

// An email inbox's own mail servers (Chatwoot's imap_* and smtp_* settings): the IMAP mailbox the poller reads
// and the SMTP server replies go through. Both are reached only at addresses the delivery policy allows (public
// deployed, loopback too locally: ./address-guard.ts), resolved once and connected to by address, the host name
// kept for TLS. The IMAP and SMTP libraries are loaded on first use (dynamic imports, chunks of their own): the
// inbox functions that import this module for an email inbox's live check carry them only then.

export interface ImapSettings {
  imap_address?: string | null;
  imap_port?: number | null;
  imap_login?: string | null;
  imap_password?: string | null;
  /** Chatwoot connects with TLS whatever this says; here `false` means a plain connection (local servers). */
  imap_enable_ssl?: boolean | null;
}

export interface SmtpSettings {
  smtp_address?: string | null;
  smtp_port?: number | null;
  smtp_login?: string | null;
  smtp_password?: string | null;
  smtp_domain?: string | null;
  smtp_enable_ssl_tls?: boolean | null;
  smtp_enable_starttls_auto?: boolean | null;
  smtp_openssl_verify_mode?: string | null;
  smtp_authentication?: string | null;
}

/** The address to connect to: the first the policy allows; throws the guard's error otherwise. */
export function allowedAddress(host: string): Promise<string> {
  return new Promise((resolve, reject) =>
    guardedLookup(config().webhookTargets)(host, { all: false }, (err, address) => (err ? reject(err) : resolve(address as string))),
  );
}

/** A connected IMAP client (the caller logs out). */
export async function openImap(s: ImapSettings, timeoutMs = 15_000): Promise<ImapFlow> {
  if (!s.imap_address || !s.imap_port) throw new Error('IMAP address and port are required');
  const host = await allowedAddress(s.imap_address);
  const secure = s.imap_enable_ssl !== false;
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host,
    port: s.imap_port,
    secure,
    doSTARTTLS: secure ? undefined : false,
    servername: s.imap_address,
    auth: { user: s.imap_login ?? '', pass: s.imap_password ?? '' },
    logger: false,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: 60_000,
    tls: { servername: s.imap_address },
  });
  // An error after connect (a dropped socket) is also thrown by the pending command; unhandled, it would end the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** A nodemailer transport for the inbox's SMTP server. */
export async function smtpTransport(s: SmtpSettings, timeoutMs = 15_000): Promise<Transporter> {
  if (!s.smtp_address || !s.smtp_port) throw new Error('SMTP address and port are required');
  const host = await allowedAddress(s.smtp_address);
  const { default: nodemailer } = await import('nodemailer');
  return nodemailer.createTransport({
    host,
    port: s.smtp_port,
    secure: s.smtp_enable_ssl_tls === true,
    ignoreTLS: s.smtp_enable_ssl_tls !== true && s.smtp_enable_starttls_auto === false,
    name: s.smtp_domain || undefined,
    ...(s.smtp_login ? { auth: { user: s.smtp_login, pass: s.smtp_password ?? '' } } : {}),
    ...(s.smtp_authentication ? { authMethod: s.smtp_authentication.toUpperCase() } : {}),
    tls: { servername: s.smtp_address, rejectUnauthorized: s.smtp_openssl_verify_mode !== 'none' },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: 60_000,
  });
}

const reason = (err: unknown) =>
  err instanceof Error ? (err as Error & { responseText?: string }).responseText || err.message : String(err);

/** Chatwoot's live check of an IMAP update: a login; the failure's text, or undefined when it worked. */
export async function checkImap(s: ImapSettings): Promise<string | undefined> {
  try {
    const client = await openImap(s);
    await client.logout().catch(() => {});
    return undefined;
  } catch (err) {
    return reason(err);
  }
}

/** Chatwoot's live check of an SMTP update: connect and authenticate (nodemailer's verify). */
export async function checkSmtp(s: SmtpSettings): Promise<string | undefined> {
  try {
    const t = await smtpTransport(s);
    await t.verify();
    t.close();
    return undefined;
  } catch (err) {
    return reason(err);
  }
}
