import hoodiecrow from 'hoodiecrow-imap';

// A real IMAP server on 127.0.0.1 (`hoodiecrow-imap`, a scriptable IMAP4rev1 server for client tests): one
// user, an INBOX the test appends mails to, plain (no TLS) connections.

export interface ImapServer {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Appends a raw mail to INBOX (its UID is the next one). */
  deliver(raw: Buffer): void;
  close(): Promise<void>;
}

export async function imapServer(user = 'support@acme.test', password = 'imap-secret'): Promise<ImapServer> {
  const server = hoodiecrow({
    plugins: ['AUTH-PLAIN', 'ID', 'IDLE', 'UNSELECT', 'ENABLE'],
    users: { [user]: { password } },
    storage: { INBOX: { messages: [] } },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    host: '127.0.0.1',
    port: (server.server.address() as { port: number }).port,
    user,
    password,
    deliver: (raw) => void server.appendMessage('INBOX', [], new Date(), raw.toString('binary')),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
