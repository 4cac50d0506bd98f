// The terminal's HTTP link to the server: the cookie jar, the session token, the last `Date` header,
// and firmware downloads.

import { SimulatorError } from './sim-error.js';
import type { HttpReply, HttpTransport } from './http-transport.js';
import type { RequestSpec } from './uploads.js';
import { PUSH_CONTENT_TYPE } from './v3-session.js';

export interface DeviceLinkOptions {
  readonly sn: string;
  readonly protocol: 'v2' | 'v3';
  readonly transport: HttpTransport;
  /** the session token computed at registration, or null */
  token(): string | null;
  timeoutMs(): number;
  /** the device's current abort signal (a new one after each stop()) */
  signal(): AbortSignal;
  /** count a failure in the device's stats */
  fail(err: unknown): void;
}

export class DeviceLink {
  readonly #opts: DeviceLinkOptions;
  readonly #cookies = new Map<string, string>();
  #lastDate: string | null = null;

  constructor(opts: DeviceLinkOptions) {
    this.#opts = opts;
  }

  /** the `Date` header of the last reply [PUSH-v2 §2.7], or null */
  get lastDate(): string | null {
    return this.#lastDate;
  }

  #cookieHeader(): string | undefined {
    const jar = new Map(this.#cookies);
    const token = this.#opts.token();
    // [PUSH-v3 §5] every request after /iclock/push carries `Cookie: token=…`; a token the server
    // set itself wins over the computed one
    if (!jar.has('token') && token !== null) jar.set('token', token);
    if (jar.size === 0) return undefined;
    return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async send(spec: RequestSpec, contentType?: string): Promise<HttpReply> {
    const reply = await this.#opts.transport.send(spec, {
      cookie: this.#cookieHeader(),
      contentType: contentType ?? (this.#opts.protocol === 'v3' ? PUSH_CONTENT_TYPE : undefined),
      timeoutMs: this.#opts.timeoutMs(),
      signal: this.#opts.signal(),
    });
    for (const c of reply.setCookies) {
      const pair = c.split(';')[0] as string;
      const eq = pair.indexOf('=');
      if (eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    if (reply.date !== null) this.#lastDate = reply.date;
    return reply;
  }

  /** Firmware for UPGRADE; null (and a counted failure) when the download fails. */
  async download(url: string, direct: boolean): Promise<Buffer | null> {
    const { transport } = this.#opts;
    try {
      const opts = { cookie: this.#cookieHeader(), contentType: undefined, timeoutMs: this.#opts.timeoutMs(), signal: this.#opts.signal() };
      // [COMMANDS §4.22] methods 1 and 2 fetch through /iclock/file; method 3 fetches the URL itself
      const reply = direct
        ? await transport.fetchUrl(url, opts)
        : await transport.send(
            {
              method: 'GET',
              path: '/iclock/file',
              query: [
                ['SN', this.#opts.sn],
                ['url', url],
              ],
            },
            opts,
          );
      if (reply.status === 200) return reply.bytes;
      this.#opts.fail(new SimulatorError('http', `firmware download answered HTTP ${reply.status}`));
    } catch (err) {
      this.#opts.fail(err);
    }
    return null;
  }
}
