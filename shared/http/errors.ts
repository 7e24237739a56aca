// Every non-2xx answer on all three interfaces has this body (spec §7, DESIGN.md §2).
export interface ErrorEntry {
  field: string;
  message: string;
  code: string;
}

export interface ErrorBody {
  description: string;
  errors: ErrorEntry[];
}

/** A failure the client caused or is allowed to see; anything else becomes a 500 without details. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly errors: ErrorEntry[] = [],
    /** Response headers the error carries (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'HttpError';
  }

  get body(): ErrorBody {
    return { description: this.description, errors: this.errors };
  }
}

const entry = (field: string, message: string, code: string): ErrorEntry => ({ field, message, code });

export const badRequest = (message: string, code = 'invalid') =>
  new HttpError(400, message, [entry('', message, code)]);

export const unauthorized = (message = 'Invalid or missing access token') =>
  new HttpError(401, message, [entry('', message, 'unauthorized')]);

/** Chatwoot's words for a failed identity check (its widget and SDKs read them under `error`). */
export const HMAC_FAILED = 'HMAC failed: Invalid Identifier Hash Provided';

class IdentityError extends HttpError {
  override get body() {
    return { ...super.body, error: HMAC_FAILED };
  }
}

/** 401 of identity validation (HMAC over the identifier): the error body, with Chatwoot's `error` beside it. */
export const hmacFailed = (message: string) => new IdentityError(401, HMAC_FAILED, [entry('identifier_hash', message, 'unauthorized')]);

export const forbidden = (message = 'You are not authorized to do this action', code = 'forbidden') =>
  new HttpError(403, message, [entry('', message, code)]);

/** Absent, or not the caller's to see: the two are deliberately indistinguishable. */
export const notFound = (what = 'Resource') =>
  new HttpError(404, `${what} not found`, [entry('', `${what} could not be found`, 'not_found')]);

export const routeNotFound = () =>
  new HttpError(404, 'No route matches this method and path', [entry('', 'Unknown route', 'not_found')]);

export const tooLarge = (limit: number) =>
  new HttpError(413, `Request body is larger than ${limit} bytes`, [entry('', 'Body too large', 'too_large')]);

export const unprocessable = (errors: ErrorEntry[], description?: string) =>
  new HttpError(422, description ?? errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; '), errors);

export const invalidField = (field: string, message: string, code = 'invalid') =>
  unprocessable([entry(field, message, code)]);

export const taken = (field: string, message = 'has already been taken') =>
  unprocessable([entry(field, message, 'taken')]);

/** 429 with `Retry-After` (whole seconds); `what` names the limit that was reached. */
export const rateLimited = (retryAfter: number, what: string) =>
  new HttpError(429, `Too many requests for this ${what}`, [entry('', `Retry in ${retryAfter} seconds`, 'rate_limited')], {
    'retry-after': String(retryAfter),
  });
