import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';

/**
 * A WebSocket API event; $connect's also carries the handshake's headers, and every event the client's
 * address (`requestContext.identity.sourceIp`, which the type package leaves out).
 */
export type WebSocketEvent = APIGatewayProxyWebsocketEventV2 & {
  headers?: Record<string, string | undefined>;
  requestContext: APIGatewayProxyWebsocketEventV2['requestContext'] & { identity?: { sourceIp?: string } };
};
