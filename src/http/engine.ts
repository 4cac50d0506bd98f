/**
 * The two HTTP engines behind the port of ./types.ts, and the choice between them
 * (BIOGATE_HTTP_ENGINE), so the gateway runs beyond the Node versions uWS ships binaries for:
 *
 * - `uws`: uWebSockets.js, native; two builds cover Node 20 (any glibc) and Node 22–25 (glibc 2.38+), src/http/uws.ts.
 * - `node`: node:http / node:https with `ws` for WebSockets; runs wherever Node runs.
 * - `auto` (default): uws when its native binary loads, else node.
 *
 * An engine only moves bytes: routing, limits, error mapping, request ids and WebSocket policy live
 * in the engine-neutral modules (./exchange.ts, ./websocket.ts) both engines are handed.
 */
import type { Logger } from '../log.js';
import type { Exchanges } from './exchanges.js';
import type { Router } from './router.js';
import type { HttpEngineChoice, HttpEngineName, HttpServerOptions, WebSocketRoute } from './types.js';
import { loadUwsBuild, UwsUnavailableError } from './uws.js';
import type { WebSocketRegistry } from './websocket.js';

/** What an engine is built from: the server's options and its engine-neutral parts. */
export interface EngineParts {
  readonly options: HttpServerOptions;
  readonly router: Router;
  readonly exchanges: Exchanges;
  readonly websockets: WebSocketRegistry;
}

/** What an engine does; ./server.ts drives it (graceful close is the same sequence on both). */
export interface Engine {
  readonly name: HttpEngineName;
  mountWebSocket<U>(route: WebSocketRoute<U>): void;
  /** Binds exclusively; rejects with a ListenError when the address is in use or not available. */
  listen(host: string, port: number): Promise<number>;
  /** Closes the listening sockets; open connections stay (a kept-alive client still gets its 503). */
  stopAccepting(): void;
  /** Cuts every connection still open. */
  closeConnections(): void;
}

/** The listener cannot be set up (port in use, address not available, unusable TLS files): an operating problem, not a bug. */
export class ListenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
  }
}

/** The engine a choice comes to on this machine, and why (for the startup log line and `biogate doctor`). */
export interface ResolvedEngine {
  readonly engine: HttpEngineName;
  readonly reason: string;
  /** True when `auto` had to fall back to node:http (worth a warning: uws is faster). */
  readonly fallback: boolean;
}

/**
 * Resolves BIOGATE_HTTP_ENGINE. `uws` that cannot load throws UwsUnavailableError (a clear startup
 * error); `auto` falls back to node with the reason.
 */
export function resolveHttpEngine(choice: HttpEngineChoice): ResolvedEngine {
  if (choice === 'node') return { engine: 'node', reason: 'BIOGATE_HTTP_ENGINE=node', fallback: false };
  if (choice === 'uws') {
    const { version } = loadUwsBuild();
    return { engine: 'uws', reason: `BIOGATE_HTTP_ENGINE=uws (uWebSockets.js ${version})`, fallback: false };
  }
  try {
    const { version } = loadUwsBuild();
    return { engine: 'uws', reason: `auto: the uWebSockets.js native binary loads (${version})`, fallback: false };
  } catch (err) {
    if (!(err instanceof UwsUnavailableError)) throw err;
    return { engine: 'node', reason: `auto: ${err.reason}`, fallback: true };
  }
}

/** Logs the engine once at startup: info when as chosen, a warning when auto fell back. */
export function logEngine(logger: Logger, resolved: ResolvedEngine): void {
  const fields = { engine: resolved.engine, reason: resolved.reason, node: process.versions.node };
  if (resolved.fallback)
    logger.warn(fields, 'HTTP engine: node:http (uWebSockets.js is not available here; set BIOGATE_HTTP_ENGINE=node to silence this)');
  else logger.info(fields, `HTTP engine: ${resolved.engine === 'uws' ? 'uWebSockets.js' : 'node:http'}`);
}
