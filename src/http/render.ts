/** A handler's HttpResponse → status, headers and body bytes (shared by HTTP replies and WebSocket upgrade refusals). */
import type { HttpResponse } from './types.js';

/** `headers` may be the handler's own object: read it, never write to it. */
export type Rendered = { status: number; headers: Readonly<Record<string, string>>; payload: Uint8Array };

/** Status, headers and body bytes of a response (HEAD uses the byte length only). */
export function render(response: HttpResponse): Rendered {
  const given = response.headers ?? {};
  // The handler's headers are used as they are (never written to) unless a Content-Type is added.
  const hasType = 'Content-Type' in given || Object.keys(given).some((k) => k.toLowerCase() === 'content-type');
  const typed = (type: string): Record<string, string> =>
    hasType ? (given as Record<string, string>) : { ...given, 'Content-Type': type };
  const body = response.body;
  if (body === undefined || body === null)
    return { status: response.status, headers: given as Record<string, string>, payload: new Uint8Array(0) };
  if (typeof body === 'string')
    return { status: response.status, headers: typed('text/plain; charset=utf-8'), payload: Buffer.from(body, 'utf8') };
  if (body instanceof Uint8Array) return { status: response.status, headers: typed('application/octet-stream'), payload: body };
  return { status: response.status, headers: typed('application/json; charset=utf-8'), payload: Buffer.from(JSON.stringify(body), 'utf8') };
}
