// Plain DOM, no framework: the whole page must stay small.

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...kids: (Node | string | undefined)[]
) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids) if (k !== undefined) el.append(k);
  return el;
}

/** The page's container; its data attributes tell people and tests the theme and whether replies arrive live. */
export const root = h('div', { class: 'cw' });
