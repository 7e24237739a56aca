import type { AttachmentRecord, MessageRecord } from '#shared/model/messages.ts';

// The push Chatwoot sends to LINE (docs/channels.md#line): the text, then one image or video message per such
// attachment (LINE takes no other file by link; Chatwoot sends `null` for those, which LINE refuses: left out
// here), or for an `input_select` a flex bubble of the text and one message button per item.

type Json = Record<string, unknown>;

/** LINE takes at most five messages a push. */
export const PUSH_SIZE = 5;

export function lineMessages(
  text: string,
  message: Pick<MessageRecord, 'content_type' | 'content_attributes'>,
  attachments: { record: AttachmentRecord; link: string }[],
): Json[] {
  if (message.content_type === 'input_select') {
    const items = (Array.isArray(message.content_attributes.items) ? message.content_attributes.items : []) as {
      title?: unknown;
      value?: unknown;
    }[];
    return [
      {
        type: 'flex',
        altText: text,
        contents: {
          type: 'bubble',
          body: {
            type: 'box',
            layout: 'vertical',
            contents: [
              { type: 'text', text, wrap: true },
              ...items.map((i) => ({
                type: 'button',
                style: 'link',
                height: 'sm',
                action: { type: 'message', label: String(i.title ?? ''), text: String(i.value ?? '') },
              })),
            ],
          },
        },
      },
    ];
  }
  const media = attachments
    .filter((a) => a.record.file_type === 'image' || a.record.file_type === 'video')
    .map((a) => ({ type: a.record.file_type, originalContentUrl: a.link, previewImageUrl: a.link }));
  return [...(text ? [{ type: 'text', text }] : []), ...media];
}

/** LINE's error body in Chatwoot's words: `"<message>, <property>: <message>, …"`. */
export function lineError(json: unknown): string | undefined {
  const j = json as { message?: unknown; details?: { property?: unknown; message?: unknown }[] } | undefined;
  if (typeof j?.message !== 'string') return undefined;
  const details = Array.isArray(j.details) ? j.details.map((d) => `${d?.property}: ${d?.message}`) : [];
  return [j.message, ...details].join(', ');
}
