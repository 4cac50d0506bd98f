// HTTP to the server with Node's global fetch (keep-alive by default), one timeout per request and
// the device's abort signal.

import { SimulatorError } from './sim-error.js';
import type { RequestSpec } from './uploads.js';
import { decodeText, encodeText, tgzOf, type SimCharset } from './wire-bytes.js';
import { encodeQueryValue } from './wire-text.js';

export interface HttpReply {
  readonly status: number;
  readonly bytes: Buffer;
  readonly text: string;
  readonly setCookies: readonly string[];
  /** the `Date` header [PUSH-v2 §2.7], or null */
  readonly date: string | null;
}

export interface SendOptions {
  readonly cookie: string | undefined;
  readonly contentType: string | undefined;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export interface HttpTransport {
  /** a request to the server's `/iclock/...` endpoints */
  send(spec: RequestSpec, opts: SendOptions): Promise<HttpReply>;
  /** GET an absolute URL, or one relative to the server */
  fetchUrl(url: string, opts: SendOptions): Promise<HttpReply>;
}

/** [PUSH-v2 §2.1] the header a real terminal sends */
const USER_AGENT = 'iClock Proxy/1.09';

/** `charset`: the terminal's names go out and are read back in it (GBK for language 83) [PUSH-v2 §2.6]. */
export function createHttpTransport(baseUrl: string, charset: SimCharset = 'utf-8'): HttpTransport {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');

  async function request(url: string, method: 'GET' | 'POST', body: Buffer | null, opts: SendOptions): Promise<HttpReply> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
    if (opts.cookie !== undefined) headers.cookie = opts.cookie;
    if (opts.contentType !== undefined && body !== null) headers['content-type'] = opts.contentType;
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = AbortSignal.any([opts.signal, timeout]);
    try {
      const res = await fetch(url, { method, headers, body, signal });
      const bytes = Buffer.from(await res.arrayBuffer());
      return {
        status: res.status,
        bytes,
        text: decodeText(bytes, charset),
        setCookies: res.headers.getSetCookie(),
        date: res.headers.get('date'),
      };
    } catch (err) {
      const what = `${method} ${url.replace(base.origin, '')}`;
      if (timeout.aborted) throw new SimulatorError('timeout', `${what}: no reply within ${opts.timeoutMs} ms`, { cause: err });
      if (opts.signal.aborted) throw new SimulatorError('aborted', `${what}: aborted`, { cause: err });
      throw new SimulatorError('network', `${what}: ${(err as Error).message}`, { cause: err });
    }
  }

  return {
    send(spec, opts) {
      const query = spec.query.map(([k, v]) => `${k}=${encodeQueryValue(v)}`).join('&');
      let body: Buffer | null = null;
      if (spec.method === 'POST') {
        body = encodeText(spec.body, charset);
        if (spec.packed === true) body = tgzOf({ 'operlog.txt': body });
      }
      return request(`${base.origin}${prefix}${spec.path}?${query}`, spec.method, body, opts);
    },
    fetchUrl(url, opts) {
      return request(new URL(url, `${base.origin}${prefix}/`).href, 'GET', null, opts);
    },
  };
}
