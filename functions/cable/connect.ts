import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { admitSocket, openConnection } from '#shared/realtime/connections.ts';
import { pickSubprotocol } from '#shared/realtime/protocol.ts';
import type { WebSocketEvent } from '#shared/realtime/websocket-event.ts';

// $connect of the WebSocket API: admits the socket (a slot of its address's socket count; 429 refuses
// the handshake), records the connection (the pinger greets it once it is open, since nothing can be sent
// before this returns) and answers the ActionCable sub-protocol when offered.
export const handler = async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
  const admitted = await admitSocket(event.requestContext.identity?.sourceIp);
  if (!admitted) return { statusCode: 429, headers: { 'Retry-After': '60' } };
  const offered = Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === 'sec-websocket-protocol')?.[1];
  const protocol = pickSubprotocol(offered);
  await openConnection(event.requestContext.connectionId, { welcomed: false, addressHash: admitted.addressHash });
  return { statusCode: 200, ...(protocol ? { headers: { 'Sec-WebSocket-Protocol': protocol } } : {}) };
};
