/**
 * Server-side request forgery guard for webhook destinations: a URL typed by an API
 * caller must not reach the gateway's own loopback, the cloud metadata service (169.254.169.254)
 * or the private network behind it, unless the operator allows it (BIOGATE_WEBHOOK_ALLOW_PRIVATE=on).
 *
 * The check is on the resolved address, not the name (a public name may resolve to 10.0.0.5), and
 * it runs again at connect time through the socket's `lookup` (DNS may answer differently later:
 * rebinding). Literal IPs never pass through `lookup`, so they are checked before connecting.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { networkMatcher } from '../net/cidr.js';

/** Special-purpose ranges (RFC 6890 and successors) that are not the public internet. */
const NON_PUBLIC = networkMatcher([
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
]);

export interface DestinationPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
}

/** Strips the brackets of an IPv6 URL host. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** True for an address on the public internet (an IPv4-mapped IPv6 address is judged as its IPv4). */
export function isPublicAddress(address: string): boolean {
  return isIP(address) !== 0 && !NON_PUBLIC(address);
}

/** Why this URL may not be used as a destination, or null. Syntax and literal addresses only (no DNS). */
export function urlProblem(text: string, policy: DestinationPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.protocol === 'http:' && !policy.allowHttp) return 'must be an https:// URL (plain http:// needs BIOGATE_WEBHOOK_ALLOW_HTTP=on)';
  if (url.username || url.password) return 'must not carry credentials (the signature authenticates BioGate)';
  const host = hostOf(url);
  if (isIP(host) !== 0 && !policy.allowPrivate && !isPublicAddress(host)) return privateMessage(host);
  return null;
}

export const privateMessage = (address: string): string =>
  `resolves to ${address}, a loopback, link-local or private address (allowed only with BIOGATE_WEBHOOK_ALLOW_PRIVATE=on)`;

/** Resolves the URL's host and answers why it is refused (private address), or null. A name that does not resolve passes (delivery retries). */
export async function resolvedProblem(text: string, policy: DestinationPolicy): Promise<string | null> {
  if (policy.allowPrivate) return null;
  const host = hostOf(new URL(text));
  if (isIP(host) !== 0) return isPublicAddress(host) ? null : privateMessage(host);
  const addresses = await new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (err, a) => resolve(err ? [] : a)));
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  return bad ? privateMessage(bad.address) : null;
}

/** A `lookup` for http.request that refuses non-public answers (checked when the socket connects). */
export function guardedLookup(policy: DestinationPolicy): LookupFunction | undefined {
  if (policy.allowPrivate) return undefined;
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (bad) return callback(Object.assign(new Error(`${hostname} ${privateMessage(bad.address)}`), { code: 'EWEBHOOKPRIVATE' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
