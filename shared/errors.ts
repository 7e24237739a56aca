// The errors every layer may throw, and the error body every non-2xx answer carries (docs/api.md):
// `{"description": string, "errors": [{"field", "message", "code"}]}`. An error names its kind; the HTTP
// layer alone turns a kind into a status code (shared/http/errors.ts). Anything thrown that is not a
// ServiceError is a bug: logged with the request id and answered 500 without details.

export interface ErrorEntry {
  field: string;
  message: string;
  code: string;
}

export interface ErrorBody {
  description: string;
  errors: ErrorEntry[];
}

export type ErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported_media_type'
  | 'invalid'
  | 'rate_limited'
  | 'unavailable';

/** A failure the client caused or is allowed to see. */
export class ServiceError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly description: string,
    readonly errors: ErrorEntry[] = [],
    /** Whole seconds after which a retry may succeed (rate limits, contention). */
    readonly retryAfter?: number,
    /** Keys a client reads beside the error body (Chatwoot's `error` of a failed identity check). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(description);
    this.name = 'ServiceError';
  }

  get body(): ErrorBody {
    return { ...this.extra, description: this.description, errors: this.errors };
  }
}

const entry = (field: string, message: string, code: string): ErrorEntry => ({ field, message, code });

export const badRequest = (message: string, code = 'invalid') => new ServiceError('bad_request', message, [entry('', message, code)]);

export const unauthorized = (message = 'Invalid or missing access token') =>
  new ServiceError('unauthorized', message, [entry('', message, 'unauthorized')]);

/** Chatwoot's words for a failed identity check (its widget and SDKs read them under `error`). */
export const HMAC_FAILED = 'HMAC failed: Invalid Identifier Hash Provided';

/** A failed identity validation (HMAC over the identifier): the error body, with Chatwoot's `error` beside it. */
export const hmacFailed = (message: string) =>
  new ServiceError('unauthorized', HMAC_FAILED, [entry('identifier_hash', message, 'unauthorized')], undefined, { error: HMAC_FAILED });

export const forbidden = (message = 'You are not authorized to do this action', code = 'forbidden') =>
  new ServiceError('forbidden', message, [entry('', message, code)]);

/** Absent, or not the caller's to see: the two are deliberately indistinguishable. */
export const notFound = (what = 'Resource') =>
  new ServiceError('not_found', `${what} not found`, [entry('', `${what} could not be found`, 'not_found')]);

export const routeNotFound = () =>
  new ServiceError('not_found', 'No route matches this method and path', [entry('', 'Unknown route', 'not_found')]);

export const tooLarge = (limit: number) =>
  new ServiceError('too_large', `Request body is larger than ${limit} bytes`, [entry('', 'Body too large', 'too_large')]);

export const unprocessable = (errors: ErrorEntry[], description?: string) =>
  new ServiceError('invalid', description ?? errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; '), errors);

export const invalidField = (field: string, message: string, code = 'invalid') => unprocessable([entry(field, message, code)]);

export const taken = (field: string, message = 'has already been taken') => unprocessable([entry(field, message, 'taken')]);

/** `what` names the limit that was reached; the answer says when to retry (whole seconds). */
export const rateLimited = (retryAfter: number, what: string) =>
  new ServiceError(
    'rate_limited',
    `Too many requests for this ${what}`,
    [entry('', `Retry in ${retryAfter} seconds`, 'rate_limited')],
    retryAfter,
  );

/** True for a 422 whose only reason is a value another record holds (a unique field). */
export const isTaken = (err: unknown) =>
  err instanceof ServiceError && err.kind === 'invalid' && err.errors.some((e) => e.code === 'taken');
