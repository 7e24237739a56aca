import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResult = APIGatewayProxyStructuredResultV2;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** A handler result with a status other than 200, or no body. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const reply = (status: number, body?: unknown, headers?: Record<string, string>) => new Reply(status, body, headers);

/** A non-JSON body sent as is (CSV downloads). */
export class TextReply {
  constructor(
    readonly body: string,
    readonly headers: Record<string, string>,
    readonly status = 200,
  ) {}
}

/** A handler's result as an HTTP answer; a result of nothing is `emptyStatus` with no body. */
/** A CSV file to download (Chatwoot's report downloads). */
export const csvReply = (file: { filename: string; csv: string }) =>
  new TextReply(file.csv, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${file.filename}"` });

/** A handler's result as an HTTP answer; a result of nothing is `emptyStatus` with no body. */
export function toHttp(result: unknown, emptyStatus = 200): HttpResult {
  if (result instanceof TextReply) return { statusCode: result.status, headers: { ...result.headers }, body: result.body };
  if (result instanceof Reply) {
    if (result.body === undefined) return { statusCode: result.status, headers: { ...result.headers }, body: '' };
    return { statusCode: result.status, headers: { ...JSON_HEADERS, ...result.headers }, body: JSON.stringify(result.body) };
  }
  if (result === undefined) return { statusCode: emptyStatus, headers: {}, body: '' };
  return { statusCode: 200, headers: JSON_HEADERS, body: JSON.stringify(result) };
}

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { statusCode: status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}
