// Small helpers of the routes that answer browsers with HTML (the help center's pages, the widget's pages).

/** Text made safe inside HTML text and attribute values. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A page's own errors are small HTML documents for browsers; a client that asks for JSON (and not HTML)
 * gets the error body every other route answers.
 */
export const wantsJson = (accept: string | undefined) =>
  /\bapplication\/(?:[\w.+-]*\+)?json\b/i.test(accept ?? '') && !/\btext\/html\b/i.test(accept ?? '');
