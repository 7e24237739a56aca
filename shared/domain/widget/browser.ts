// What Chatwoot's widget events learn from the request itself (its `browser` gem): the visitor's
// browser and platform from the User-Agent, the preferred language from Accept-Language.

export interface BrowserInfo {
  browser_name: string;
  browser_version: string;
  device_name: string;
  platform_name: string;
  platform_version: string;
}

// First match wins: Edge and Opera also say Chrome, Chrome also says Safari.
const BROWSERS: [string, RegExp][] = [
  ['Microsoft Edge', /Edg(?:e|A|iOS)?\/([\d.]+)/],
  ['Opera', /OPR\/([\d.]+)/],
  ['Samsung Browser', /SamsungBrowser\/([\d.]+)/],
  ['Firefox', /(?:Firefox|FxiOS)\/([\d.]+)/],
  ['Chrome', /(?:Chrome|CriOS)\/([\d.]+)/],
  ['Safari', /Version\/([\d.]+).*Safari\//],
];

const PLATFORMS: [string, RegExp][] = [
  ['Windows', /Windows NT ([\d.]+)/],
  ['iOS', /(?:iPhone|iPad|iPod).*? OS ([\d_]+)/],
  ['Android', /Android ([\d.]+)/],
  ['Chrome OS', /CrOS \S+ ([\d.]+)/],
  ['macOS', /Mac OS X ([\d_.]+)/],
  ['Linux', /Linux()/],
];

const DEVICES: [string, RegExp][] = [
  ['iPhone', /iPhone/],
  ['iPad', /iPad/],
  ['iPod Touch', /iPod/],
];

const first = (list: [string, RegExp][], ua: string) => {
  for (const [name, re] of list) {
    const m = re.exec(ua);
    if (m) return { name, version: (m[1] ?? '').replace(/_/g, '.') };
  }
  return undefined;
};

/** Chatwoot's "unknown" values where the agent names nothing it recognises. */
export function browserOf(userAgent: string | undefined): BrowserInfo {
  const ua = (userAgent ?? '').slice(0, 1024);
  const browser = first(BROWSERS, ua);
  const platform = first(PLATFORMS, ua);
  return {
    browser_name: browser?.name ?? 'Unknown Browser',
    browser_version: browser?.version ?? '0.0',
    device_name: first(DEVICES, ua)?.name ?? 'Unknown',
    platform_name: platform?.name ?? 'Unknown',
    platform_version: platform?.version || '0',
  };
}

/** The primary language subtag of the most preferred Accept-Language entry (`*` names none). */
export function languageOf(acceptLanguage: string | undefined): string | undefined {
  const ranked = (acceptLanguage ?? '')
    .slice(0, 1024)
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((x) => x !== undefined);
      return { code: tag.trim().split('-')[0].toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => /^[a-z]{1,8}$/.test(l.code) && l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked[0]?.code;
}
