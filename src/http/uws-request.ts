/** What both uWS handlers (plain requests, WebSocket upgrades) read off a uWS request, in its one valid tick. */
import { reasonOf } from './status-reasons.js';
import type { Incoming } from './wire.js';
import type { HttpRequest as UwsRequest } from 'uWebSockets.js';

/** The headers being copied (copyRequest is synchronous: one at a time), and the one callback that adds to them. */
let into: Record<string, string> = {};
const addHeader = (k: string, v: string): void => {
  into[k] = Object.hasOwn(into, k) ? `${into[k]}, ${v}` : v;
};

/** Copies the request's fields: `req` is invalid once the handler returns. */
export function copyRequest(req: UwsRequest, peer: ArrayBuffer): Incoming {
  const headers: Record<string, string> = {};
  into = headers;
  req.forEach(addHeader);
  return {
    method: req.getMethod().toUpperCase(),
    path: req.getUrl(),
    rawQuery: req.getQuery() ?? '',
    headers,
    peer: Buffer.from(peer).toString(),
  };
}

/** `200 OK`; the code alone when we know no reason phrase. */
export const statusLine = (status: number): string => `${status} ${reasonOf(status)}`.trimEnd();
