import type { AttachmentRecord, MessageRecord } from '#shared/model/messages.ts';

// The requests Chatwoot sends to Telegram's Bot API (docs/channels.md#telegram), form-encoded: `sendMessage` with
// the text in Telegram HTML (an `input_select` as an inline keyboard), then the attachments: photos and videos in
// one `sendMediaGroup`, audios in another (at most ten a group), and every other file by `sendDocument`, its bytes
// uploaded as multipart/form-data under its own name (Chatwoot's upload; Telegram fetches a link only for PDF, ZIP
// and GIF files).

export type Form = Record<string, string>;

export interface Target {
  chatId: string;
  /** The business connection a business chat's messages go through. */
  businessConnectionId?: string;
  /** The Telegram message id replied to. */
  replyTo?: string;
}

const common = (t: Target): Form => ({
  chat_id: t.chatId,
  ...(t.replyTo ? { reply_to_message_id: t.replyTo } : {}),
  ...(t.businessConnectionId ? { business_connection_id: t.businessConnectionId } : {}),
});

/** `sendMessage`: the text, and for `input_select` Chatwoot's one-time inline keyboard (a button a row). */
export function textForm(t: Target, html: string, message: Pick<MessageRecord, 'content_type' | 'content_attributes'>): Form {
  const form: Form = { ...common(t), text: html, parse_mode: 'HTML' };
  if (message.content_type === 'input_select') {
    const items = (Array.isArray(message.content_attributes.items) ? message.content_attributes.items : []) as {
      title?: unknown;
      value?: unknown;
    }[];
    form.reply_markup = JSON.stringify({
      one_time_keyboard: true,
      inline_keyboard: items.map((i) => [{ text: String(i.title ?? ''), callback_data: String(i.value ?? '') }]),
    });
  }
  return form;
}

export interface Outgoing {
  record: AttachmentRecord;
  /** A link Telegram can fetch. */
  link: string;
}

/** `file`: a document whose bytes go as the `document` part of a multipart upload. */
export type AttachmentRequest = { method: 'sendMediaGroup' | 'sendDocument'; form: Form; file?: Outgoing };

const GROUP_SIZE = 10;
const chunks = <T>(list: T[]) =>
  Array.from({ length: Math.ceil(list.length / GROUP_SIZE) }, (_, i) => list.slice(i * GROUP_SIZE, (i + 1) * GROUP_SIZE));

/** The attachment requests in Chatwoot's order: the photo and video groups, the audio groups, then each document. */
export function attachmentRequests(t: Target, attachments: Outgoing[]): AttachmentRequest[] {
  const visual = attachments.filter((a) => a.record.file_type === 'image' || a.record.file_type === 'video');
  const audio = attachments.filter((a) => a.record.file_type === 'audio');
  const documents = attachments.filter((a) => !visual.includes(a) && !audio.includes(a));
  const group = (list: Outgoing[]): AttachmentRequest => ({
    method: 'sendMediaGroup',
    form: {
      ...common(t),
      media: JSON.stringify(list.map((a) => ({ type: a.record.file_type === 'image' ? 'photo' : a.record.file_type, media: a.link }))),
    },
  });
  return [
    ...chunks(visual).map(group),
    ...chunks(audio).map(group),
    ...documents.map((a) => ({ method: 'sendDocument' as const, form: common(t), file: a })),
  ];
}

/** A multipart/form-data body: the fields, then the file under `field` with its name and type. */
export async function multipartBody(
  form: Form,
  field: string,
  file: { data: Buffer; filename: string; contentType: string },
): Promise<{ contentType: string; body: Buffer }> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(form)) fd.append(k, v);
  fd.append(field, new Blob([new Uint8Array(file.data)], { type: file.contentType || 'application/octet-stream' }), file.filename);
  const encoded = new Response(fd);
  return { contentType: encoded.headers.get('content-type') ?? 'multipart/form-data', body: Buffer.from(await encoded.arrayBuffer()) };
}
