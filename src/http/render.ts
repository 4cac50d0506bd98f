/** A handler's HttpResponse → status, headers and body bytes (shared by HTTP replies and WebSocket upgrade refusals). */
import type { HttpResponse } from './types.js';

export type Rendered = { status: number; headers: Record<string, string>; payload: Uint8Array };

/** Status, headers and body bytes of a response (HEAD uses the byte length only). */
export function render(response: HttpResponse): Rendered {
  const headers: Record<string, string> = { ...response.headers };
  const hasType = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
  let payload: Uint8Array;
  const body = response.body;
  if (body === undefined || body === null) payload = new Uint8Array(0);
  else if (typeof body === 'string') {
    payload = Buffer.from(body, 'utf8');
    if (!hasType) headers['Content-Type'] = 'text/plain; charset=utf-8';
  } else if (body instanceof Uint8Array) {
    payload = body;
    if (!hasType) headers['Content-Type'] = 'application/octet-stream';
  } else {
    payload = Buffer.from(JSON.stringify(body), 'utf8');
    if (!hasType) headers['Content-Type'] = 'application/json; charset=utf-8';
  }
  return { status: response.status, headers, payload };
}
