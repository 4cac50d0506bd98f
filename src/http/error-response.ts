// The one mapping of a thrown value to an HTTP response: a BioGateError gets its catalogued status,
// anything else a generic 500 with an error id that finds the log line.

import { randomUUID } from 'node:crypto';
import { BioGateError, toErrorResponse } from '../errors.js';
import type { Logger } from '../log.js';
import type { HttpResponse } from './types.js';

/**
 * A refusal whose answer is already made: a door that speaks another API's error shapes (the BioTime API's
 * `{"detail": …}`, src/biotime/) throws it from `authorize`, where a BioGateError would be rendered as ours.
 */
export class HttpRefusal extends Error {
  constructor(readonly response: HttpResponse) {
    super(`refused with ${response.status}`);
    this.name = 'HttpRefusal';
  }
}

/**
 * The one mapping of a thrown value to a response, for routes and WebSocket upgrades alike: a
 * BioGateError gets its status and `{detail, code}`, an HttpRefusal its own answer; anything else the generic 500.
 */
export function errorResponse(err: unknown, log: Logger, method: string, path: string): HttpResponse {
  if (err instanceof HttpRefusal) return err.response;
  if (!(err instanceof BioGateError)) return internalError(err, log, method, path);
  const r = toErrorResponse(err);
  // A documented 503 (store outage, shutdown) is an operating state, not a bug.
  if (r.status === 503) log.warn({ code: err.code, method, path }, 'request refused: service unavailable');
  else if (r.status >= 500) log.error({ err, method, path }, 'request failed');
  return { status: r.status, headers: r.headers, body: r.body };
}

/**
 * The generic 500 for anything that is not a BioGateError: no details for the caller, an
 * `error_id` that finds the full log line (API-CONTRACT §3: "a bug: details only in the log").
 */
export function internalError(err: unknown, log: Logger, method: string, path: string): HttpResponse {
  const errorId = randomUUID();
  try {
    log.error({ err, error_id: errorId, method, path }, 'request failed');
  } catch {
    // A logger that cannot serialise this error must not take the process with it.
  }
  const r = toErrorResponse(undefined);
  return { status: r.status, headers: r.headers, body: { ...r.body, error_id: errorId } };
}
