/** What both uWS handlers (plain requests, WebSocket upgrades) read off a uWS request, in its one valid tick. */
import { reasonOf, type Incoming } from './exchange.js';
import type { HttpRequest as UwsRequest } from 'uWebSockets.js';

/** Copies the request's fields: `req` is invalid once the handler returns. */
export function copyRequest(req: UwsRequest, peer: ArrayBuffer): Incoming {
  const headers: Record<string, string> = {};
  req.forEach((k, v) => {
    headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
  });
  return { method: req.getMethod().toUpperCase(), path: req.getUrl(), rawQuery: req.getQuery() ?? '', headers, peer: Buffer.from(peer).toString() };
}

/** `200 OK`; the code alone when we know no reason phrase. */
export const statusLine = (status: number): string => `${status} ${reasonOf(status)}`.trimEnd();
