import type { APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';

/** A WebSocket API event; $connect's also carries the handshake's headers. */
export type WebSocketEvent = APIGatewayProxyWebsocketEventV2 & { headers?: Record<string, string | undefined> };
