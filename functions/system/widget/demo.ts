import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '#shared/config.ts';
import { demoPage } from '#shared/http/widget-assets.ts';

// `GET /widget/demo?website_token=…`: a host page embedding the snippet, to try the widget.
export const handler = (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  demoPage(event.queryStringParameters?.website_token, config().publicBaseUrl, event.headers?.accept);
