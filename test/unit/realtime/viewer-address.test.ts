import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { viewerAddress } from '../../../infra/cable-server/main.ts';

const req = (forwarded: string | string[] | undefined, peer = '10.0.0.5') =>
  ({
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    socket: { remoteAddress: peer },
  }) as unknown as IncomingMessage;

describe("the Fargate socket server's client address", () => {
  it("is the last X-Forwarded-For entry (CloudFront appends the viewer's; what a client sent itself comes before)", () => {
    expect(viewerAddress(req('198.51.100.7'))).toBe('198.51.100.7');
    expect(viewerAddress(req('1.2.3.4, 198.51.100.7'))).toBe('198.51.100.7');
    expect(viewerAddress(req(['1.2.3.4', ' 2001:db8::1 ']))).toBe('2001:db8::1');
  });

  it('is the TCP peer without the header', () => {
    expect(viewerAddress(req(undefined))).toBe('10.0.0.5');
    expect(viewerAddress(req(' , '))).toBe('10.0.0.5');
  });
});
