import { SMTPServer } from 'smtp-server';

// `npm start`'s stand-in for SES receiving (docs/mail.md#ways-in): an SMTP server on 127.0.0.1 that takes any
// mail (a developer `swaks`es or nodemailers one in) and hands its raw bytes and envelope recipients on. It
// answers only once the mail is queued, so a mail the queue did not take is refused (451) and the sender retries.

export interface SmtpListener {
  port: number;
  close(): Promise<void>;
}

export async function startSmtpListener(opts: {
  host?: string;
  port: number;
  maxBytes: number;
  handOff(raw: Buffer, envelopeTo: string[]): Promise<void>;
}): Promise<SmtpListener> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: opts.maxBytes,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
          callback(Object.assign(new Error('Message exceeds the size limit'), { responseCode: 552 }));
          return;
        }
        const to = session.envelope.rcptTo.map((r) => r.address);
        opts.handOff(Buffer.concat(chunks), to).then(
          () => callback(),
          (err: unknown) => callback(Object.assign(new Error(`Not queued: ${(err as Error).message}`), { responseCode: 451 })),
        );
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
