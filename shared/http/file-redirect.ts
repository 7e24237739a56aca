import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ServiceError, notFound } from '#shared/errors.ts';
import { errorResult } from './errors.ts';
import { enforceLimit, limitScope } from './limits.ts';
import { jsonResult } from './response.ts';
import { log } from '#shared/log.ts';
import { verifiedFile } from '#shared/storage/file-urls.ts';
import { objectSize, signedObjectUrl } from '#shared/storage/objects.ts';

/** How long the redirect's presigned GET lasts, and so at most how long a browser may keep the redirect. */
const PRESIGNED_SECONDS = 300;
const REDIRECT_CACHE_SECONDS = 240;

/**
 * `GET /rails/active_storage/blobs/redirect/{signed_id}/{filename}`: counted per client address first (429
 * with Retry-After), then a link whose MAC, expiry and name check out and whose object still exists (a
 * deleted message's files are deleted) answers 302 to a short-lived presigned GET; anything else 404.
 */
export async function fileRedirect(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    await enforceLimit('address', limitScope.address(event.requestContext?.http?.sourceIp ?? 'unknown'));
    const file = await verifiedFile(event.pathParameters?.signed_id ?? '', event.pathParameters?.filename ?? '');
    if (!file || (await objectSize(file.key)) === undefined) return jsonResult(404, notFound('File').body);
    const left = file.expires - Math.floor(Date.now() / 1000);
    return {
      statusCode: 302,
      headers: {
        location: await signedObjectUrl(file.key, PRESIGNED_SECONDS),
        'cache-control': `private, max-age=${Math.max(0, Math.min(REDIRECT_CACHE_SECONDS, left))}`,
      },
      body: '',
    };
  } catch (err) {
    if (err instanceof ServiceError) return errorResult(err);
    log.error('file redirect failed', { error: err });
    return jsonResult(500, {
      description: 'Internal server error',
      errors: [{ field: '', message: 'Something went wrong', code: 'internal' }],
    });
  }
}
