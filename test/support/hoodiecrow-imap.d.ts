// The few parts of `hoodiecrow-imap` (no types of its own) that test/support/imap.ts uses.
declare module 'hoodiecrow-imap' {
  import type { Server } from 'node:net';
  interface HoodiecrowServer {
    server: Server;
    listen(port: number, host: string, callback: () => void): void;
    close(callback: () => void): void;
    appendMessage(mailbox: string, flags: string[], internaldate: Date, raw: string): unknown;
  }
  export default function hoodiecrow(options: Record<string, unknown>): HoodiecrowServer;
}
