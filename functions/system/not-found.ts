import { routeNotFound } from '#shared/errors.ts';
import { jsonResult } from '#shared/http/response.ts';

// API Gateway's `$default` route: whatever no other route matches. No body parsing, no auth: the
// answer is the same 404 error body for every method and path.
export const handler = async () => jsonResult(404, routeNotFound().body);
