import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { sdkScript } from '#shared/http/widget-assets.ts';

// `GET /packs/js/sdk.js`: the widget's loader, at the URL Chatwoot's website snippet names.
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  sdkScript(event.headers?.['accept-encoding']);
