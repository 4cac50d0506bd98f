/**
 * "The database cannot be reached" for the MongoDB adapter: which driver errors mean it, and a
 * readiness view kept from the driver's own topology events, so /readyz answers at once instead of
 * waiting for a ping to time out. Only this folder imports `mongodb`; the rest of the
 * gateway sees `BioGateError('STORE_UNAVAILABLE')` (the mapping itself is `guardStore` in src/store/open.ts).
 */
import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
  type MongoClient,
} from 'mongodb';

/**
 * Server error codes that say "this server cannot serve you now" rather than "your request is wrong":
 * shutdown, step-down, and host/network failures reported by a mongos or a replica-set member
 * (the driver's own "state change" set, plus the network codes).
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Driver error classes that are not exported by name (cmap/errors.js), matched by their `name`. */
const UNAVAILABLE_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClearedError', 'PoolClearedOnNetworkError']);

/**
 * Socket errors of Node itself. The driver wraps most of them in MongoNetworkError, but not all: a
 * command written to a socket the server has just closed can surface as a bare `EPIPE` ("This socket
 * has been ended by the other party", seen in test/hardening/store-outage.test.ts).
 */
const SOCKET_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

/** Thrown by a fast check while the driver knows no reachable server (see `trackReachability`). */
export class MongoUnreachableError extends Error {
  constructor() {
    super('no MongoDB server is reachable (driver topology)');
    this.name = 'MongoUnreachableError';
  }
}

/**
 * The error a driver error wraps: `cause`, or, for a bulk write that failed as a whole (a
 * MongoBulkWriteError around a server-selection or network error), its `errorResponse`.
 */
function inner(e: Error): unknown {
  if (e.cause instanceof Error) return e.cause;
  const response: unknown = (e as { errorResponse?: unknown }).errorResponse;
  return response instanceof Error ? response : undefined;
}

/** Whether an error thrown by the driver means the database is unreachable (looks through what it wraps). */
export function isMongoUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = inner(e), depth++) {
    if (
      e instanceof MongoNetworkError || // includes MongoNetworkTimeoutError and pool-cleared errors
      e instanceof MongoServerSelectionError ||
      e instanceof MongoOperationTimeoutError ||
      e instanceof MongoNotConnectedError ||
      e instanceof MongoUnreachableError ||
      UNAVAILABLE_NAMES.has(e.name) ||
      SOCKET_CODES.has(String((e as { code?: unknown }).code))
    ) {
      return true;
    }
    if (
      (e instanceof MongoServerError || e instanceof MongoWriteConcernError) &&
      typeof e.code === 'number' &&
      UNAVAILABLE_CODES.has(e.code)
    )
      return true;
  }
  return false;
}

export interface Reachability {
  /** False from the moment the driver describes every server as unreachable until one answers again. */
  readonly isUp: boolean;
  stop(): void;
}

/** Server types that can answer reads or writes (the driver's ServerType values). */
const DATA_BEARING = new Set(['Standalone', 'Mongos', 'RSPrimary', 'RSSecondary', 'LoadBalancer']);

/**
 * Follows the driver's SDAM events: a network error on any operation, or a failed heartbeat, turns
 * the server `Unknown` at once (topologyDescriptionChanged); the next successful check or
 * handshake describes it again. No polling of our own.
 */
export function trackReachability(client: MongoClient): Reachability {
  let isUp = true;
  const onTopology = (ev: { newDescription: { servers: ReadonlyMap<string, { type: string }> } }): void => {
    isUp = [...ev.newDescription.servers.values()].some((s) => DATA_BEARING.has(s.type));
  };
  client.on('topologyDescriptionChanged', onTopology);
  return {
    get isUp() {
      return isUp;
    },
    stop() {
      client.off('topologyDescriptionChanged', onTopology);
    },
  };
}
