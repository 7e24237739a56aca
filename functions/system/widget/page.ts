import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { chatPage } from '#shared/http/widget-assets.ts';

// `GET /widget?website_token=…`: the chat page the loader's iframe (or a mobile webview) opens.
export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  chatPage(event.queryStringParameters?.website_token, event.headers?.accept);
