/**
 * GET /api/stream: the event feed of one location over a WebSocket, on the relative
 * topic scheme the MQTT bridge uses (DESIGN.md "Events"). Reached only through the ports app.ts
 * hands in: the HTTP server's WebSocket routes, the store, the feed.
 *
 * Authentication happens before the upgrade (401 with `{detail, code}`, no WebSocket), and is
 * checked again while connected: a revoked or expired token, or a disabled location, ends the
 * stream (1008) within `recheckMs`.
 */
import { authenticate, type Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { EventFeed } from '../events/types.js';
import type { HttpServer } from '../http/server.js';
import { CLOSE_POLICY } from '../http/websocket.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { Device } from '../store/ports/index.js';
import { authenticateUpgrade } from './auth.js';
import { StreamSession } from './session.js';

export const STREAM_PATH = '/api/stream';
const DEFAULT_MAX_BUFFERED = 1024 * 1024;
const DEFAULT_RECHECK_MS = 30_000;
/** Client messages are small JSON objects. */
const MAX_CLIENT_FRAME = 16 * 1024;

export interface StreamDeps {
  readonly http: HttpServer;
  readonly store: Store;
  readonly feed: EventFeed;
  readonly clock: Clock;
  readonly log: Logger;
  readonly onlineThresholdS: number;
  readonly liveLastSeen?: (sn: string) => string | undefined;
  /** Online on another node, as the cluster announced it (devices/presence.ts). */
  readonly onlineElsewhere?: (sn: string) => boolean;
  /** Roster sync state of devices, for the retained `devices/<sn>/sync` (realtime/snapshot.ts). */
  readonly syncStates?: (devices: readonly Device[]) => Promise<ReadonlyMap<string, unknown>>;
  /** Called after authentication (the REST API's per-token rate limit: an upgrade is one request). */
  readonly onCaller?: (caller: Caller) => void;
  /** Unread bytes after which a client is cut off (default 1 MiB). */
  readonly maxBufferedBytes?: number;
  /** Seconds of silence before a connection is dropped; pings keep live clients (default 60). */
  readonly idleTimeoutS?: number;
  /** How often open streams re-check their token (ms, default 30 s). */
  readonly recheckMs?: number;
}

export interface Stream {
  /** Open stream connections on this node. */
  readonly connections: number;
  /** Re-checks every open stream's token now (the timer does it every `recheckMs`; tests with a fake clock call it). */
  recheck(): Promise<void>;
  /** Stops the token re-checks (the HTTP server closes the connections). */
  close(): void;
}

interface StreamUser {
  readonly caller: Caller;
  readonly authorization: string;
  session?: StreamSession;
}

export function mountStream(deps: StreamDeps): Stream {
  const maxBuffered = deps.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
  const sessions = new Map<StreamSession, { authorization: string; end: (code: number, reason: string) => void }>();

  deps.http.websocket<StreamUser>({
    path: STREAM_PATH,
    maxPayloadBytes: MAX_CLIENT_FRAME,
    maxBufferedBytes: maxBuffered,
    idleTimeoutS: deps.idleTimeoutS ?? 60,
    async upgrade(req) {
      const { caller, authorization, protocol } = await authenticateUpgrade(deps.store, deps.clock, req);
      deps.onCaller?.(caller);
      return { accept: { caller, authorization }, protocol };
    },
    open(conn) {
      const session = new StreamSession(
        {
          store: deps.store,
          feed: deps.feed,
          now: () => deps.clock.now(),
          onlineThresholdS: deps.onlineThresholdS,
          liveLastSeen: deps.liveLastSeen,
          onlineElsewhere: deps.onlineElsewhere,
          syncStates: deps.syncStates,
          log: deps.log,
          snapshotPauseBytes: Math.floor(maxBuffered / 2),
        },
        conn,
        conn.userData.caller,
      );
      conn.userData.session = session;
      sessions.set(session, { authorization: conn.userData.authorization, end: (code, reason) => conn.end(code, reason) });
      session.open();
      deps.log.debug(
        { location: session.locationId, token_id: conn.userData.caller.token.id, remote: conn.remoteAddress },
        'stream connected',
      );
    },
    message(conn, data, isBinary) {
      conn.userData.session?.message(data, isBinary);
    },
    drain(conn) {
      conn.userData.session?.drain();
    },
    close(conn) {
      const session = conn.userData.session;
      if (!session) return;
      session.close();
      sessions.delete(session);
    },
  });

  // A token revoked (or a location disabled) after the upgrade must not keep streaming.
  let checking = false;
  const timer = setInterval(() => {
    if (checking || sessions.size === 0) return;
    checking = true;
    void recheck().finally(() => (checking = false));
  }, deps.recheckMs ?? DEFAULT_RECHECK_MS);
  timer.unref();

  async function recheck(): Promise<void> {
    // Many connections often share one token: check each token once.
    const byToken = new Map<string, { session: StreamSession; end: (code: number, reason: string) => void }[]>();
    for (const [session, { authorization, end }] of sessions) {
      const list = byToken.get(authorization) ?? [];
      list.push({ session, end });
      byToken.set(authorization, list);
    }
    for (const [authorization, list] of byToken) {
      try {
        await authenticate(deps.store, authorization, deps.clock.now());
      } catch (err) {
        // A store outage is not the client's fault: keep streaming, check again next time.
        if (!(err instanceof BioGateError) || err.status >= 500) continue;
        for (const { session, end } of list) {
          deps.log.info({ location: session.locationId, code: err.code }, 'stream token no longer valid: disconnected');
          end(CLOSE_POLICY, `${err.code}: ${err.message}`);
        }
      }
    }
  }

  return {
    get connections() {
      return sessions.size;
    },
    recheck,
    close() {
      clearInterval(timer);
    },
  };
}
