import type { ChannelConfig, WidgetMessage } from './protocol.ts';

// The chat page's calls to the widget API: the website token in the query string, the visitor's auth
// token in X-Auth-Token (replaced when `set_user` moves the visitor to another contact).

export interface Session {
  auth_token: string;
  website_channel_config: ChannelConfig;
  contact: { id: number; name: string; email: string | null; pubsub_token: string; source_id: string };
  /** Where the socket is when it is not this host's `/cable` (deployed behind another API). */
  websocket_url?: string;
}

/** `GET /api/v1/widget/campaigns`. */
export interface Campaign {
  id: number;
  message: string;
  trigger_rules: { url?: string; time_on_page?: number | string };
  sender: { name: string; avatar_url: string } | null;
  trigger_only_during_business_hours?: boolean;
}

/** A refused call: its status and the service's answer (the detail of Chatwoot's `chatwoot:error`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly data: unknown,
  ) {
    super(`widget API: ${status}`);
  }
}

export class WidgetApi {
  constructor(
    private readonly base: string,
    private readonly websiteToken: string,
    public authToken: string | undefined,
    private readonly locale?: string,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown, query = ''): Promise<T> {
    const url = `${this.base}/api/v1/widget${path}?website_token=${encodeURIComponent(this.websiteToken)}${this.locale ? `&locale=${encodeURIComponent(this.locale)}` : ''}${query}`;
    const headers: Record<string, string> = this.authToken ? { 'X-Auth-Token': this.authToken } : {};
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(url, { method, headers, body: payload });
    const text = await res.text();
    let data: unknown = text;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: the text itself */
    }
    if (!res.ok) throw new ApiError(res.status, data);
    return data as T;
  }

  config = () => this.call<Session>('POST', '/config');
  messages = (before?: number) => this.call<WidgetMessage[]>('GET', '/messages', undefined, before ? `&before=${before}` : '');
  conversation = () => this.call<{ id?: number; status?: string; contact_last_seen_at?: number }>('GET', '/conversations');
  send = (content: string, echoId: string) =>
    this.call<WidgetMessage>('POST', '/messages', {
      message: { content, echo_id: echoId, timestamp: new Date().toString(), referer_url: document.referrer || location.href },
    });
  sendFile(file: File, echoId: string) {
    const form = new FormData();
    form.append('message[echo_id]', echoId);
    form.append('message[attachments][]', file, file.name);
    return this.call<WidgetMessage>('POST', '/messages', form);
  }
  startConversation = (contact: Record<string, unknown>, content: string) =>
    this.call<{ id: number; messages: WidgetMessage[] }>('POST', '/conversations', {
      contact,
      message: { content, timestamp: new Date().toString(), referer_url: document.referrer || location.href },
    });
  typing = (on: boolean) => this.call<void>('POST', '/conversations/toggle_typing', { typing_status: on ? 'on' : 'off' });
  seen = () => this.call<void>('POST', '/conversations/update_last_seen');
  setUser = (identifier: string, user: Record<string, unknown>) =>
    this.call<{ pubsub_token: string; widget_auth_token?: string }>('PATCH', '/contact/set_user', { ...user, identifier });
  updateContact = (fields: Record<string, unknown>) => this.call<unknown>('PATCH', '/contact', fields);
  deleteContactAttribute = (key: string) => this.call<unknown>('POST', '/contact/destroy_custom_attributes', { custom_attributes: [key] });
  setConversationAttributes = (attrs: Record<string, unknown>) =>
    this.call<unknown>('POST', '/conversations/set_custom_attributes', { custom_attributes: attrs });
  deleteConversationAttribute = (key: string) =>
    this.call<unknown>('POST', '/conversations/destroy_custom_attributes', { custom_attribute: [key] });
  addLabel = (label: string) => this.call<void>('POST', '/labels', { label });
  removeLabel = (label: string) => this.call<void>('DELETE', `/labels/${encodeURIComponent(label)}`);
  campaigns = () => this.call<Campaign[]>('GET', '/campaigns');
  /** Chatwoot's widget runs a campaign with this event: the service starts the conversation with its message. */
  triggerCampaign = (campaignId: number) =>
    this.call<unknown>('POST', '/events', {
      name: 'campaign.triggered',
      event_info: { campaign_id: campaignId, referer: document.referrer || null, initiated_at: { timestamp: new Date().toString() } },
    });
  submit = (id: number, body: unknown) => this.call<WidgetMessage>('PATCH', `/messages/${id}`, body);
}
