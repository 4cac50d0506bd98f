/**
 * The HTTP server behind the port of ./types.ts: routing, body limits, request ids and
 * per-request loggers, error mapping, WebSocket routes and graceful close, on either engine
 * (./engine.ts: uWebSockets.js or node:http). The engine only moves bytes; what a client sees is
 * decided in the engine-neutral modules, so both engines answer alike (test/http/parity.test.ts).
 */
import { BioGateError } from '../errors.js';
import { resolveHttpEngine, type Engine, type EngineParts } from './engine.js';
import { Exchanges } from './exchanges.js';
import { createNodeEngine } from './node-server.js';
import { Router } from './router.js';
import type { HttpEngineName, HttpServer, HttpServerOptions } from './types.js';
import { createUwsEngine } from './uws-server.js';
import { CLOSE_GOING_AWAY, WebSocketRegistry } from './websocket.js';

export type { HttpServer, HttpServerOptions } from './types.js';
export { ListenError } from './engine.js';

/**
 * Builds a server on `options.engine` (default `auto`). Pass an engine already resolved (by
 * resolveHttpEngine) to build several servers on one engine without resolving again.
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const choice = options.engine ?? 'auto';
  const name: HttpEngineName = choice === 'auto' ? resolveHttpEngine('auto').engine : choice;
  const router = new Router();
  const exchanges = new Exchanges({
    logger: options.logger,
    router,
    bodyLimit: options.bodyLimit,
    bodyTimeoutMs: options.bodyTimeoutMs,
    trustedProxies: options.trustedProxies,
    onResponse: options.onResponse,
  });
  const websockets = new WebSocketRegistry({
    logger: options.logger,
    trustedProxies: options.trustedProxies,
    onResponse: options.onResponse,
    exchanges,
  });
  const parts: EngineParts = { options, router, exchanges, websockets };
  const engine: Engine = name === 'uws' ? createUwsEngine(parts) : createNodeEngine(parts);

  return {
    engine: engine.name,
    route: (r) => router.add(r),
    routes: () => router.list(),
    websocket: (r) => {
      engine.mountWebSocket(r);
      // A GET without the upgrade headers reaches the HTTP routes: say what is expected there.
      router.add({
        method: 'GET',
        pattern: r.path,
        handler: () =>
          Promise.reject(
            new BioGateError('BAD_REQUEST', `${r.path} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)`),
          ),
      });
    },
    get openWebSockets() {
      return websockets.open;
    },
    get inFlight() {
      return exchanges.inFlight;
    },
    listen: (host, port) => engine.listen(host, port),
    close: async (graceMs) => {
      engine.stopAccepting();
      exchanges.stop();
      websockets.closeAll(CLOSE_GOING_AWAY, 'server shutting down');
      await exchanges.drained(graceMs);
      // Responses finished in this turn of the event loop may still sit in the engine's write
      // buffers (uWS's cork buffer), and closing resets sockets at once: let one turn pass first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      engine.closeConnections();
      exchanges.settleAll();
    },
  };
}
