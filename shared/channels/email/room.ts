import { log } from '#shared/log.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { InboundItem } from '#shared/queues/channels.ts';
import type { ChannelRoom } from '../channel.ts';
import { EMAIL_ROOM } from './ingress.ts';

// The email room (docs/mail.md): its ways in are its own (./ingress.ts: the relay route, SES, the local SMTP
// listener, IMAP), each queueing the raw mail on the channel-inbound queue; the consumer hands it to `receive`.
// Agents' replies in email inboxes go out through `send`. Both load their modules on first use (dynamic imports):
// every function that reaches the rooms registry would carry the mail parser and composer otherwise.

export const emailRoom: ChannelRoom = {
  kind: EMAIL_ROOM,
  channelTypes: ['Channel::Email'],
  // Attachments come inside the mail: nothing to fetch from a provider.
  fetchMedia: async () => undefined,
  async receive(item: InboundItem, inbox: InboxRecord) {
    const [{ rawOf }, { receiveMail }] = await Promise.all([import('./ingest.ts'), import('./receive.ts')]);
    const outcome = await receiveMail(inbox, await rawOf(item.body));
    log.info('mail received', { inboxId: inbox.id, ...outcome });
  },
  send: async (...args) => (await import('./send.ts')).sendEmailReply(...args),
};
