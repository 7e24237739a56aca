import type { AttachmentRecord, MessageRecord } from '#shared/model/messages.ts';

// The requests Chatwoot sends to Messenger (docs/channels.md#facebook-messenger): the text (an `input_select` with
// its quick replies), then one request per attachment; every one tagged `ACCOUNT_UPDATE`, as Chatwoot tags them.

type Json = Record<string, unknown>;

const tagged = (recipient: string, message: Json): Json => ({
  recipient: { id: recipient },
  message,
  messaging_type: 'MESSAGE_TAG',
  tag: 'ACCOUNT_UPDATE',
});

export function textBody(
  recipient: string,
  text: string,
  message: Pick<MessageRecord, 'content' | 'content_type' | 'content_attributes'>,
): Json {
  if (message.content_type === 'input_select') {
    const items = (Array.isArray(message.content_attributes.items) ? message.content_attributes.items : []) as { title?: unknown }[];
    // Chatwoot sends the raw content with the quick replies, each answering with its title.
    return tagged(recipient, {
      text: message.content ?? '',
      quick_replies: items.map((i) => ({ content_type: 'text', title: String(i.title ?? ''), payload: String(i.title ?? '') })),
    });
  }
  return tagged(recipient, { text });
}

const TYPES = new Set(['image', 'audio', 'video']);

export const attachmentBody = (recipient: string, a: AttachmentRecord, link: string): Json =>
  tagged(recipient, { attachment: { type: TYPES.has(a.file_type) ? a.file_type : 'file', payload: { url: link } } });
