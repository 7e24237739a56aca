import type { Campaign } from './api.ts';
import { online } from './hours.ts';
import { drawLog } from './message-log.ts';
import { api, toParent } from './page.ts';
import { addUnread, dropStandIn, setStandIn, state, upsert, type Msg } from './state.ts';

// Campaigns: shown when the host page matches their rules, run when the visitor opens the widget.

let campaigns: Campaign[] = [];
let pageUrl: string | undefined;
const timers: ReturnType<typeof setTimeout>[] = [];
/** The campaign whose message is shown, not yet run. */
let shown: Campaign | undefined;

const noSlash = (u: string) => u.replace(/\/+$/, '');
const chatting = () => state.conversationId !== undefined || [...state.messages.keys()].some((k) => !k.startsWith('campaign:'));

/** Campaigns matter only to a visitor who is not chatting yet (Chatwoot runs a campaign once). */
export async function loadCampaigns() {
  if (!chatting()) campaigns = await api.campaigns().catch(() => []);
}

export function setPageUrl(url: string) {
  pageUrl = url;
  scheduleCampaigns();
}

/** Chatwoot's widget: the page's address equals the campaign's url, within working hours when it asks. */
export function scheduleCampaigns() {
  timers.splice(0).forEach(clearTimeout);
  const url = pageUrl;
  if (!url || !state.config || chatting() || shown) return;
  for (const c of campaigns) {
    if (!c.trigger_rules.url || noSlash(c.trigger_rules.url) !== noSlash(url)) continue;
    if (c.trigger_only_during_business_hours && !online(state.config)) continue;
    const wait = Math.max(0, Number(c.trigger_rules.time_on_page) || 0) * 1000;
    timers.push(setTimeout(() => showCampaign(c), wait));
  }
}

function showCampaign(c: Campaign) {
  if (shown || chatting()) return;
  timers.splice(0).forEach(clearTimeout);
  shown = c;
  state.messages.set(`campaign:${c.id}`, {
    content: c.message,
    message_type: 1,
    created_at: Date.now() / 1000,
    sender: c.sender ? { name: c.sender.name } : undefined,
  } as Msg);
  drawLog();
  if (state.open) void runCampaign();
  else {
    toParent({ event: 'campaign', message: c.message, senderName: c.sender?.name ?? null });
    addUnread(1);
  }
}

/** `campaign.triggered`: the service starts the conversation with the campaign's message; it replaces ours. */
export async function runCampaign() {
  const c = shown;
  if (!c) return;
  shown = undefined;
  setStandIn(`campaign:${c.id}`);
  toParent({ event: 'campaignDone' });
  try {
    await api.triggerCampaign(c.id);
    const history = await api.messages();
    // The history is the conversation as the service holds it: our copy goes now if no message took it.
    dropStandIn();
    upsert(history, false);
  } catch {
    /* the message stays shown; the visitor can still write */
  }
}
