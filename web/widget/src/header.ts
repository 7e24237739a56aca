import { h } from './dom.ts';
import { online } from './hours.ts';
import { embedded, toParent } from './page.ts';
import type { ChannelConfig } from './protocol.ts';
import { t } from './words.ts';

const title = h('h1');
const tagline = h('p', { class: 'cw-tagline' });
const status = h('p', { class: 'cw-status' });
const closeBtn = embedded ? h('button', { type: 'button', class: 'cw-close' }, '×') : undefined;
closeBtn?.addEventListener('click', () => toParent({ event: 'toggleBubble' }));
export const header = h('header', { class: 'cw-header' }, h('div', {}, title, tagline, status), closeBtn);

export const headerTexts = () => closeBtn?.setAttribute('aria-label', t.close);

const replyTime = (r: string | null | undefined) =>
  r === 'in_a_few_minutes' ? t.fewMinutes : r === 'in_a_few_hours' ? t.fewHours : r === 'in_a_day' ? t.aDay : t.online;

export function drawHeader(c: ChannelConfig) {
  title.textContent = c.welcome_title || c.website_name;
  tagline.textContent = c.welcome_tagline ?? '';
  tagline.hidden = !c.welcome_tagline;
  const on = online(c);
  status.textContent = on ? replyTime(c.reply_time) : t.away;
  status.dataset.online = String(on);
}
