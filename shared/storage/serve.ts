import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { notFound } from '../http/errors.ts';
import { jsonResult } from '../http/response.ts';
import { objectKeyOf, signedObjectUrl } from './objects.ts';

const SERVED = /^(avatars|attachments)\//;

/** 302 to a signed GET of the object an `objectUrl` names; 404 for anything else. */
export async function avatarRedirect(segment: string): Promise<APIGatewayProxyStructuredResultV2> {
  const key = objectKeyOf(segment);
  if (!key || !SERVED.test(key)) return jsonResult(404, notFound('File').body);
  return {
    statusCode: 302,
    headers: { location: await signedObjectUrl(key), 'cache-control': 'private, max-age=240' },
    body: '',
  };
}
