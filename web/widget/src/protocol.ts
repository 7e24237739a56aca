import type { widgetChannelJson, widgetMessageJson } from '#shared/domain/widget/view.ts';

// What the loader, the chat page and the service say to each other. The postMessage strings are
// Chatwoot's (`chatwoot-widget:` + JSON), so mobile webviews that drive Chatwoot's widget drive this one.

export const PREFIX = 'chatwoot-widget:';

/** The widget's settings, as `POST /api/v1/widget/config` returns them. */
export type ChannelConfig = ReturnType<typeof widgetChannelJson>;
/** A message as the widget API returns it. */
export type WidgetMessage = ReturnType<typeof widgetMessageJson>;

/** Host page (or mobile app) → chat page. */
export type ToChat =
  | { event: 'set-user'; identifier: string; user?: Record<string, unknown> }
  | { event: 'set-custom-attributes'; customAttributes: Record<string, unknown> }
  | { event: 'delete-custom-attribute'; customAttribute: string }
  | { event: 'set-conversation-custom-attributes'; customAttributes: Record<string, unknown> }
  | { event: 'delete-conversation-custom-attribute'; customAttribute: string }
  | { event: 'set-label'; label: string }
  | { event: 'remove-label'; label: string }
  | { event: 'set-locale'; locale: string }
  | { event: 'set-color-scheme'; darkMode: 'light' | 'dark' | 'auto' }
  | { event: 'toggle-open'; isOpen: boolean }
  /** The host page's address (campaign trigger rules match it); sent at start and on navigation. */
  | { event: 'change-url'; referrerURL: string };

/** Chat page → host page. */
export type FromChat =
  | { event: 'loaded'; config: { authToken: string; channelConfig: ChannelConfig } }
  | { event: 'setAuthCookie'; data: { widgetAuthToken: string } }
  | { event: 'setUnreadMode'; unreadMessageCount: number }
  /** Chatwoot's window events: the loader dispatches `eventIdentifier` (`chatwoot:on-message`, …) with `data` as detail. */
  | { event: 'onEvent'; eventIdentifier: SdkEvent; data: unknown }
  /** A command failed (`SET_USER_ERROR`): the loader dispatches `chatwoot:error` with `data`, the service's answer. */
  | { event: 'error'; errorType: string; data: unknown }
  | { event: 'toggleBubble' }
  | { event: 'closeWindow' }
  /** A campaign's message is due while the widget is closed: the loader shows it above the launcher. */
  | { event: 'campaign'; message: string; senderName: string | null }
  /** The campaign was run or dropped: the loader takes its card away. */
  | { event: 'campaignDone' };

/** The window events the chat page raises through the loader (Chatwoot's names). */
export type SdkEvent = 'chatwoot:on-message' | 'chatwoot:on-start-conversation';

export const encode = (m: ToChat | FromChat) => PREFIX + JSON.stringify(m);

export function decode<T>(data: unknown): T | undefined {
  if (typeof data !== 'string' || !data.startsWith(PREFIX)) return undefined;
  try {
    const m = JSON.parse(data.slice(PREFIX.length));
    return m && typeof m === 'object' && typeof m.event === 'string' ? (m as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Where a chat page opened on its own (a mobile webview, a pop-out) keeps its visitor's auth token (per inbox). */
export const tokenKey = (websiteToken: string) => `cw_conversation_${websiteToken}`;
