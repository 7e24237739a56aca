// Rails' nested parameter keys (`webhook[url]`, `labels[]`, `a[b][c]`), read by the form and query parsers (body.ts)
// and the multipart parser (multipart.ts, loaded on the first multipart body).

/** Puts `value` at the place the Rails key names in `target`; a key naming an object's prototype is ignored. */
export function setNested(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.replace(/\]/g, '').split('[');
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    if (Array.isArray(node)) {
      if (last) node.push(value);
      else {
        const child = {};
        node.push(child);
        node = child;
      }
      continue;
    }
    if (part === '__proto__' || part === 'constructor' || part === 'prototype') return;
    if (last) {
      node[part] = value;
      continue;
    }
    const wantsArray = parts[i + 1] === '';
    const existing = node[part];
    if (wantsArray ? !Array.isArray(existing) : typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
      node[part] = wantsArray ? [] : {};
    }
    node = node[part] as Record<string, unknown> | unknown[];
  }
}
