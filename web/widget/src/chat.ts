import './chat.css';
import { articleTexts, articles, foldArticles, loadArticles, viewer } from './articles.ts';
import { loadCampaigns, runCampaign, scheduleCampaigns, setPageUrl } from './campaigns.ts';
import { ApiError } from './api.ts';
import { composer, composerTexts, focusComposer, showComposer } from './composer.ts';
import { h, root } from './dom.ts';
import { drawHeader, header, headerTexts } from './header.ts';
import { drawLog, log, logTexts } from './message-log.ts';
import { api, params, saveToken, toParent } from './page.ts';
import { drawPrechat, prechat, prechatTexts, showPrechat } from './prechat.ts';
import { decode, type ToChat } from './protocol.ts';
import { clearUnread, forgetConversation, markReady, onConversation, onUpsert, state, upsert } from './state.ts';
import { setAccent, setScheme } from './theme.ts';
import { connect, refresh, startPolling } from './transport.ts';
import { typingLine, typingTexts } from './typing.ts';
import { setLocale, t } from './words.ts';

// The chat page's wiring: the parts of the page, the commands of the host page or app, and the start.

root.append(header, articles, log, typingLine, prechat, composer, viewer);

/**
 * The inbox's help-center articles, fetched when the visitor first opens the chat (not on every page view of
 * the site) and again for a new locale; a failure leaves the chat as it is.
 */
const showArticles = () => state.open && state.config && loadArticles(state.config).catch(() => undefined);

/** Puts the locale's words on the page's fixed parts and draws the rest again. */
function applyTexts() {
  composerTexts();
  headerTexts();
  logTexts();
  typingTexts();
  prechatTexts();
  articleTexts();
  if (state.config) {
    drawHeader(state.config);
    if (state.config.pre_chat_form_enabled) drawPrechat(state.config);
    drawLog();
  }
}
applyTexts();

function drawMode() {
  const c = state.config;
  const askFirst = !!c?.pre_chat_form_enabled && state.conversationId === undefined && !state.messages.size;
  showPrechat(askFirst);
  foldArticles(state.messages.size > 0);
  showComposer(!askFirst, (c?.enabled_features ?? []).includes('attachments'));
}

onUpsert(() => {
  drawLog();
  drawMode();
});
startPolling();

async function handle(m: ToChat) {
  switch (m.event) {
    case 'set-user': {
      const res = await api.setUser(m.identifier, m.user ?? {}).catch((err) => {
        // Chatwoot's widget tells the page: `chatwoot:error` with the service's answer.
        toParent({ event: 'error', errorType: 'SET_USER_ERROR', data: err instanceof ApiError ? err.data : String(err) });
      });
      if (res?.widget_auth_token) {
        saveToken(res.widget_auth_token);
        forgetConversation();
        connect(res.pubsub_token);
        await refresh();
      }
      return;
    }
    case 'set-custom-attributes':
      return api.updateContact({ custom_attributes: m.customAttributes });
    case 'delete-custom-attribute':
      return api.deleteContactAttribute(m.customAttribute);
    case 'set-conversation-custom-attributes':
      return onConversation(() => api.setConversationAttributes(m.customAttributes));
    case 'delete-conversation-custom-attribute':
      return onConversation(() => api.deleteConversationAttribute(m.customAttribute));
    case 'set-label':
      return onConversation(() => api.addLabel(m.label));
    case 'remove-label':
      return onConversation(() => api.removeLabel(m.label));
    case 'set-locale':
      setLocale(m.locale);
      applyTexts();
      void showArticles();
      return;
    case 'change-url':
      return setPageUrl(m.referrerURL);
    case 'set-color-scheme':
      return setScheme(m.darkMode);
    case 'toggle-open':
      state.open = m.isOpen;
      if (m.isOpen) {
        void runCampaign();
        void showArticles();
        clearUnread();
        if (state.conversationId !== undefined) api.seen().catch(() => undefined);
        focusComposer();
      }
      return;
  }
}

/** Commands that come before the visitor is known wait for it. */
const pending: ToChat[] = [];

window.addEventListener('message', (e) => {
  const m = decode<ToChat>(e.data);
  if (!m) return;
  if (!state.ready) pending.push(m);
  else handle(m).catch(() => undefined);
});

async function start() {
  document.body.append(root);
  setScheme(params.get('dark_mode') ?? 'light');
  const session = await api.config();
  const config = (state.config = session.website_channel_config);
  saveToken(session.auth_token);
  setAccent(config.widget_color);
  drawHeader(config);
  if (config.pre_chat_form_enabled) drawPrechat(config);
  void showArticles();
  upsert(await api.messages(), false);
  connect(session.contact.pubsub_token, session.websocket_url);
  await loadCampaigns();
  markReady();
  toParent({ event: 'loaded', config: { authToken: session.auth_token, channelConfig: config } });
  for (const m of pending.splice(0)) await handle(m).catch(() => undefined);
  scheduleCampaigns();
}

start().catch((err) => {
  root.replaceChildren(h('p', { class: 'cw-error', role: 'alert' }, t.error));
  document.body.append(root);
  console.error(err);
});
