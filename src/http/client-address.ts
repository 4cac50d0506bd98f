/**
 * The client's address behind reverse proxies (BIOGATE_TRUSTED_PROXIES).
 *
 * Only a request whose socket peer is a trusted proxy may name another client, in `Forwarded`
 * (RFC 7239) or, without it, `X-Forwarded-For`. Each proxy appends the address it received the
 * request from, so the list is walked from the right: every trusted hop is skipped and the first
 * untrusted address is the client (what a client wrote itself sits further left and is never
 * reached). A header that cannot be read where the walk needs it yields the peer address: better
 * the proxy's address than one an attacker chose.
 *
 * Caution for deployments: a proxy that appends to `X-Forwarded-For` but passes the client's own
 * `Forwarded` header through (nginx does by default) lets clients choose their address, because
 * `Forwarded` wins. Such a proxy must clear or set `Forwarded` (deploy/nginx).
 */
import { isIP } from 'node:net';
import { networkMatcher, parseCidrList } from '../net/cidr.js';

/** Whether an address is one of the trusted proxies. */
export type TrustCheck = (address: string) => boolean;

/**
 * The check for BIOGATE_TRUSTED_PROXIES (comma-separated addresses/CIDRs, validated by the config
 * loader); undefined for an empty list, which trusts nobody.
 */
export function trustedProxies(list: string): TrustCheck | undefined {
  const { networks } = parseCidrList(list);
  return networks.length === 0 ? undefined : networkMatcher(networks);
}

/** Most hops looked at: a header with more is cut to its rightmost ones (the only ones that count). */
const MAX_HOPS = 32;

/**
 * The client address of a request from `peer` with these (lower-cased) headers. Without a trust
 * check, or from an untrusted peer, it is `peer` whatever the headers say.
 */
export function clientAddress(
  peer: string,
  headers: Readonly<Record<string, string | undefined>>,
  trusted: TrustCheck | undefined,
): string {
  if (!trusted || !trusted(peer)) return peer;
  const forwarded = headers['forwarded'];
  const xff = headers['x-forwarded-for'];
  const hops = forwarded !== undefined && forwarded.trim() !== '' ? forwardedFor(forwarded) : xff !== undefined ? xForwardedFor(xff) : [];
  let client = peer;
  for (let i = hops.length - 1; i >= 0 && trusted(client); i--) {
    const hop = hops[i];
    if (hop === undefined) return peer; // unreadable where it matters
    client = hop;
  }
  return client;
}

/**
 * The `for=` address of every element of a `Forwarded` header, left to right [RFC 7239 §4];
 * undefined for an element without a usable one (`unknown`, an obfuscated `_name`, bad syntax).
 */
export function forwardedFor(header: string): (string | undefined)[] {
  return splitOutsideQuotes(header, ',')
    .slice(-MAX_HOPS)
    .map((element) => {
      let found: string | undefined;
      for (const pair of splitOutsideQuotes(element, ';')) {
        const eq = pair.indexOf('=');
        if (eq < 0) return undefined;
        // [RFC 7239 §4] parameter names are case-insensitive; each may appear once per element.
        if (pair.slice(0, eq).trim().toLowerCase() !== 'for') continue;
        if (found !== undefined) return undefined;
        const value = unquote(pair.slice(eq + 1).trim());
        if (value === undefined) return undefined;
        found = nodeAddress(value) ?? '';
      }
      return found === '' ? undefined : found;
    });
}

/** The addresses of an `X-Forwarded-For` header, left to right; undefined for an entry that is not one. */
export function xForwardedFor(header: string): (string | undefined)[] {
  return header
    .split(',')
    .slice(-MAX_HOPS)
    .map((entry) => nodeAddress(entry.trim()));
}

/**
 * An address from a node name: `192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]`, `[2001:db8::1]:80`
 * or a bare IPv6 address (as some proxies write X-Forwarded-For) [RFC 7239 §6].
 */
function nodeAddress(text: string): string | undefined {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    const rest = text.slice(close + 1);
    if (close < 0 || (rest !== '' && !/^:\d{1,5}$/.test(rest))) return undefined;
    const v6 = text.slice(1, close);
    return isIP(v6) === 6 ? v6 : undefined;
  }
  if (isIP(text) !== 0) return text;
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text)?.[1];
  return v4 !== undefined && isIP(v4) === 4 ? v4 : undefined;
}

/** A token or a quoted-string's content [RFC 9110 §5.6.4]; undefined when the quoting is broken. */
function unquote(value: string): string | undefined {
  if (!value.startsWith('"')) return /^[!#$%&'*+.^_`|~0-9A-Za-z:-]+$/.test(value) ? value : undefined;
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  let out = '';
  for (let i = 1; i < value.length - 1; i++) {
    const ch = value[i] as string;
    if (ch === '"') return undefined;
    if (ch === '\\') {
      i++;
      if (i >= value.length - 1) return undefined;
      out += value[i];
    } else out += ch;
  }
  return out;
}

/** Splits on `sep` outside double-quoted strings (a quoted IPv6 address holds `:` but never `,` or `;`, a quoted string may). */
function splitOutsideQuotes(text: string, sep: ',' | ';'): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '\\') i++;
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === sep) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}
