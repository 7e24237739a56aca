import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { avatarRedirect } from '../../../shared/storage/serve.ts';

// `GET /avatars/{object}`: no credential (avatar URLs are shown to widget visitors too); answers a
// redirect to a short-lived signed URL of the object.
export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  avatarRedirect(event.pathParameters?.object ?? '');
