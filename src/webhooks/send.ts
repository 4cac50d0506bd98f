/**
 * One webhook POST, with node:http/https rather than fetch: fetch cannot take a custom
 * `lookup` (the address guard must see the resolved address) nor tell connect time from total time.
 *
 * - connect within 5 s, whole exchange within 15 s;
 * - redirects are not followed (a 3xx is a failed attempt: the URL should be fixed);
 * - at most 4 KB of the response is read, for the error text; the rest is dropped;
 * - an aborted `signal` (the socket pool cut a slow request off: sockets.ts) ends it as a failed attempt.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostOf, isPublicAddress, PRIVATE_ADDRESS_CODE } from '../net/address-guard.js';
import { guardedLookup, privateMessage, type DestinationPolicy } from './address-guard.js';

export const CONNECT_TIMEOUT_MS = 5_000;
export const TOTAL_TIMEOUT_MS = 15_000;
const MAX_RESPONSE_BYTES = 4096;
/** What of a response body is kept in last_error. */
const ERROR_TEXT = 200;

export interface SendResult {
  /** HTTP status, or null when no response came (refused, timeout, address refused). */
  readonly status: number | null;
  readonly ok: boolean;
  readonly error: string | null;
  readonly durationMs: number;
  readonly retryAfter: string | undefined;
}

export interface Sender {
  post(url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<SendResult>;
  close(): void;
}

/**
 * `maxSockets`: the socket pool's bound on open requests (sockets.ts: 2 × BIOGATE_WEBHOOK_SOCKETS). The agent never
 * queues below it: a request queued in the agent behind slow ones to the same host would wait on them.
 */
export function createSender(policy: DestinationPolicy, maxSockets: number): Sender {
  const lookup = guardedLookup(policy);
  // Keep-alive: a burst of punches to one receiver reuses its connection (checked once, at connect).
  const options = { keepAlive: true, maxSockets, maxFreeSockets: Math.min(maxSockets, 256) };
  const agents = { http: new HttpAgent(options), https: new HttpsAgent(options) };
  return {
    post: (url, headers, body, signal) => post(url, headers, body, policy, lookup, agents, signal),
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function post(
  text: string,
  headers: Record<string, string>,
  body: string,
  policy: DestinationPolicy,
  lookup: ReturnType<typeof guardedLookup>,
  agents: { http: HttpAgent; https: HttpsAgent },
  signal: AbortSignal | undefined,
): Promise<SendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    // Set once the request exists; `finish` may run before (a refused address).
    let total: NodeJS.Timeout | undefined = undefined;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      signal?.removeEventListener('abort', cut);
      resolve({ ...r, durationMs: took() });
    };
    const fail = (error: string) => finish({ status: null, ok: false, error, retryAfter: undefined });
    let req: ClientRequest | undefined;
    const cut = () => {
      fail('cut off: too many slow webhook receivers at once (BIOGATE_WEBHOOK_SOCKETS)');
      req?.destroy();
    };
    const url = new URL(text);
    const host = hostOf(url);
    // A literal address never goes through `lookup`.
    if (!policy.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) return fail(`refused: ${privateMessage(host)}`);
    if (url.protocol === 'http:' && !policy.allowHttp) return fail('refused: plain http:// needs BIOGATE_WEBHOOK_ALLOW_HTTP=on');
    const https = url.protocol === 'https:';
    const options = {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: https ? agents.https : agents.http,
      ...(lookup ? { lookup } : {}),
    };
    try {
      req = (https ? httpsRequest : httpRequest)(url, options, (res) => onResponse(res));
    } catch (err) {
      return fail(`request failed: ${(err as Error).message}`);
    }
    total = setTimeout(() => {
      fail(`timed out after ${TOTAL_TIMEOUT_MS / 1000} s`);
      req?.destroy();
    }, TOTAL_TIMEOUT_MS);
    if (signal?.aborted) cut();
    else signal?.addEventListener('abort', cut, { once: true });
    req.on('socket', (socket) => {
      if (!socket.connecting) return; // a kept-alive socket
      const connect = setTimeout(() => {
        fail(`could not connect within ${CONNECT_TIMEOUT_MS / 1000} s`);
        req?.destroy();
      }, CONNECT_TIMEOUT_MS);
      socket.once('connect', () => clearTimeout(connect));
      socket.once('close', () => clearTimeout(connect));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      fail(err.code === PRIVATE_ADDRESS_CODE ? `refused: ${err.message}` : `${err.code ?? 'error'}: ${err.message}`),
    );
    const onResponse = (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const ok = status >= 200 && status < 300;
        const snippet = Buffer.concat(chunks).toString('utf8').slice(0, ERROR_TEXT).replace(/\s+/g, ' ').trim();
        const error = ok
          ? null
          : status >= 300 && status < 400
            ? `HTTP ${status}: redirects are not followed`
            : `HTTP ${status}${snippet ? `: ${snippet}` : ''}`;
        const retryAfter = res.headers['retry-after'];
        finish({ status, ok, error, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_RESPONSE_BYTES) return;
        chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) {
          // Enough to report; the socket is dropped rather than drained.
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', done);
      res.on('aborted', done);
    };
    req.end(body);
  });
}
