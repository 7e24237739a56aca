/**
 * localStorage that never throws: storage may be blocked (a third-party frame, private modes). Without it
 * the visitor starts afresh on the next page, or the host page keeps the token for the frame.
 */
export const store = {
  get: (k: string): string | undefined => {
    try {
      return localStorage.getItem(k) ?? undefined;
    } catch {
      return undefined;
    }
  },
  set: (k: string, v: string | undefined): void => {
    try {
      if (v === undefined) localStorage.removeItem(k);
      else localStorage.setItem(k, v);
    } catch {
      // Nothing to keep it in; see above.
    }
  },
};
