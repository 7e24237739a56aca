import { SMTPServer } from 'smtp-server';

// A real SMTP receiver on 127.0.0.1 (the `smtp-server` package): it takes every mail and keeps it, parsed
// just enough for tests (headers, and the text and HTML parts decoded).

export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  headers: Record<string, string>;
  text: string;
  html: string;
  raw: string;
}

const decodeQp = (s: string) =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) in a header value. */
const decodeWords = (v: string) =>
  v.replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=\s*/gi, (_, _cs, enc: string, text: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQp(text.replace(/_/g, ' ')),
  );

function parseHeaders(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = decodeWords(line.slice(i + 1).trim());
  }
  return out;
}

function parts(raw: string): { headers: Record<string, string>; body: string }[] {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = parseHeaders(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (!boundary) {
    const enc = (headers['content-transfer-encoding'] ?? '').toLowerCase();
    const decoded = enc === 'quoted-printable' ? decodeQp(body) : enc === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : body;
    return [{ headers, body: decoded }];
  }
  return body
    .split(`--${boundary}`)
    .slice(1)
    .filter((p) => !p.startsWith('--'))
    .flatMap((p) => parts(p.replace(/^\r?\n/, '')));
}

/**
 * `refuse`: the SMTP reply (e.g. `550 5.1.1 <x>: Recipient address rejected`) for a recipient the server turns
 * down at RCPT TO, or undefined to take it.
 */
export async function smtpReceiver(opts: { refuse?: (recipient: string) => { code: number; message: string } | undefined } = {}) {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const refusal = opts.refuse?.(address.address);
      if (!refusal) return callback();
      callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const all = parts(raw);
        const split = raw.search(/\r?\n\r?\n/);
        mails.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          headers: parseHeaders(raw.slice(0, split)),
          // SMTP carries CRLF line ends: the parts are given back with the sender's LF.
          text: (all.find((p) => (p.headers['content-type'] ?? '').startsWith('text/plain'))?.body ?? '').replace(/\r\n/g, '\n'),
          html: (all.find((p) => (p.headers['content-type'] ?? '').startsWith('text/html'))?.body ?? '').replace(/\r\n/g, '\n'),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    host: '127.0.0.1',
    port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
