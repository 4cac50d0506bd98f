/**
 * `/mqtt` on the HTTP port (BIOGATE_MQTT=embedded): MQTT over WebSocket for browsers
 * and dashboards, served by the same embedded broker, logins and ACL as the TCP port. The client
 * must offer the `mqtt` subprotocol [MQTT-6.0.0-3]; credentials travel in the MQTT CONNECT, as on TCP.
 */
import { BioGateError } from '../../errors.js';
import type { WebSocketRoute } from '../../http/types.js';
import { CLIENT_BUFFER_BYTES, MAX_PACKET_BYTES } from './guarded-connection.js';
import type { MqttBridge } from './index.js';
import { websocketStream, type WebSocketStream } from './websocket-stream.js';

interface Slot {
  ws: WebSocketStream | null;
}

/** The route; `bridge()` is read per connection because the broker starts after the routes are mounted. */
export function mqttWebSocketRoute(bridge: () => MqttBridge | null): WebSocketRoute<Slot> {
  return {
    path: '/mqtt',
    // A frame carries at most one packet's worth (the broker's packet cap applies to the bytes inside).
    maxPayloadBytes: MAX_PACKET_BYTES + 16,
    // The broker drops deliveries at its own per-client mark first; this is the socket-level backstop.
    maxBufferedBytes: 4 * CLIENT_BUFFER_BYTES,
    // MQTT clients keep alive on their own (PINGREQ, 60 s by default); WebSocket pings cover the rest.
    idleTimeoutS: 120,
    upgrade(req) {
      if (!req.protocols.includes('mqtt'))
        throw new BioGateError('BAD_REQUEST', 'MQTT over WebSocket needs the "mqtt" subprotocol (Sec-WebSocket-Protocol: mqtt)');
      if (!bridge()?.handleStream) throw new BioGateError('NOT_FOUND', 'The embedded MQTT broker is not running');
      return { accept: { ws: null }, protocol: 'mqtt' };
    },
    open(conn) {
      const handle = bridge()?.handleStream;
      if (!handle) {
        conn.end(1011, 'mqtt broker not running');
        return;
      }
      conn.userData.ws = websocketStream(conn);
      handle(conn.userData.ws.stream, conn.remoteAddress);
    },
    message(conn, data) {
      conn.userData.ws?.message(data);
    },
    drain(conn) {
      conn.userData.ws?.drain();
    },
    close(conn) {
      conn.userData.ws?.closed();
      conn.userData.ws = null;
    },
  };
}
