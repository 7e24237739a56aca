import type { ServiceError, ErrorKind } from '#shared/errors.ts';
import { jsonResult, type HttpResult } from './response.ts';

// The one place an error's kind becomes an HTTP status.
const STATUS: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  invalid: 422,
  rate_limited: 429,
  unavailable: 503,
};

export const statusOf = (err: ServiceError): number => STATUS[err.kind];

/** The answer to a ServiceError: its status, the error body and `Retry-After` when it has one. */
export const errorResult = (err: ServiceError): HttpResult =>
  jsonResult(statusOf(err), err.body, err.retryAfter !== undefined ? { 'retry-after': String(err.retryAfter) } : {});
