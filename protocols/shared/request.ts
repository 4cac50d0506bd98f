// Routing facts of a device request: endpoint, serial number, query lookup, cookie token.
import type { Endpoint, WireRequest } from '../codec.js';
import { ProtocolError } from '../protocol-error.js';

const ENDPOINTS: Readonly<Record<string, Endpoint>> = {
  cdata: 'cdata',
  getrequest: 'getrequest',
  devicecmd: 'devicecmd',
  ping: 'ping',
  fdata: 'fdata',
  file: 'file',
  exchange: 'exchange',
  registry: 'registry',
  push: 'push',
  querydata: 'querydata',
  rtdata: 'rtdata',
  'service/control': 'service-control',
};

/**
 * `/iclock/<x>`; doubled `/iclock/iclock/<x>` is routed like `/iclock/<x>` [PUSH-v2 §2.8, PUSH-v3 §3.7];
 * case and a trailing slash are ignored. Undefined when the path is not a device endpoint.
 */
export function endpointOf(path: string): Endpoint | undefined {
  const q = path.indexOf('?');
  let p = (q < 0 ? path : path.slice(0, q)).toLowerCase();
  while (p.endsWith('/')) p = p.slice(0, -1);
  const m = /^(?:\/iclock)+\/(.+)$/.exec(p);
  return m === null ? undefined : ENDPOINTS[m[1] as string];
}

/** Query value by case-insensitive name (`SN`, `table`, `tablename`, `cmdid` …). */
export function queryValue(query: Readonly<Record<string, string>>, name: string): string | undefined {
  const direct = query[name];
  if (direct !== undefined) return direct;
  const wanted = name.toLowerCase();
  for (const key of Object.keys(query)) if (key.toLowerCase() === wanted) return query[key];
  return undefined;
}

/** Printable ASCII without space, `/`, `<` or `%` (path, markup and escape characters no terminal prints on its label). */
const SN = /^[\x21-\x7e]{1,64}$/;
const SN_FORBIDDEN = /[/<%]/;

/**
 * [PUSH-v2 §2.1] every request carries `SN`. Echoed into replies and used as a key everywhere, so an
 * implausible one is refused here, before any state exists for it.
 */
export function serialNumberOf(request: WireRequest): string {
  const sn = queryValue(request.query, 'SN');
  if (sn === undefined || sn === '') throw new ProtocolError('MISSING_SN', 'request has no SN parameter');
  if (!SN.test(sn) || SN_FORBIDDEN.test(sn))
    throw new ProtocolError('INVALID_SN', 'SN must be 1-64 printable ASCII characters without space, /, < or %');
  return sn;
}

/** [PUSH-v3 §5] `Cookie: token=…` (other cookies such as `timestamp=` ignored). */
export function tokenOf(request: WireRequest): string | null {
  const cookie = request.headers.cookie;
  if (cookie === undefined) return null;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim().toLowerCase() === 'token') return part.slice(eq + 1).trim();
  }
  return null;
}
