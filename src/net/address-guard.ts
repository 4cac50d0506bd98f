/**
 * Server-side request forgery guard for URLs the gateway fetches on an API caller's behalf (webhook
 * destinations, firmware downloads): such a URL must not reach the gateway's own loopback, the cloud
 * metadata service (169.254.169.254) or the private network behind it, unless the operator allows it
 * (the setting named in each message).
 *
 * Invariants:
 * - the check is on the address, not the name (a public name may resolve to 10.0.0.5);
 * - it runs at connect time through the socket's `lookup` (DNS may answer differently later:
 *   rebinding); a literal IP never passes through `lookup`, so callers check it with
 *   `literalProblem` before connecting;
 * - an IPv4-mapped IPv6 address is judged as its IPv4.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { networkMatcher } from './cidr.js';

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

/** The error code of a connection the guarded lookup refused. */
export const PRIVATE_ADDRESS_CODE = 'EPRIVATEADDRESS';

/** Strips the brackets of an IPv6 URL host. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** True for an address on the public internet. */
export function isPublicAddress(address: string): boolean {
  return isIP(address) !== 0 && !NON_PUBLIC(address);
}

/** Why `address` is refused; `setting` is the environment variable that would allow it. */
export const privateMessage = (address: string, setting: string): string =>
  `resolves to ${address}, a loopback, link-local or private address (allowed only with ${setting}=on)`;

/** Why the URL's host, when it is a literal non-public address, is refused; null otherwise (names pass: see guardedLookup). */
export function literalProblem(url: URL, setting: string): string | null {
  const host = hostOf(url);
  return isIP(host) !== 0 && !isPublicAddress(host) ? privateMessage(host, setting) : null;
}

/** Resolves a name and answers why it is refused (a non-public address among its answers), or null. A name that does not resolve passes. */
export async function resolvedHostProblem(host: string, setting: string): Promise<string | null> {
  if (isIP(host) !== 0) return isPublicAddress(host) ? null : privateMessage(host, setting);
  const addresses = await new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (err, a) => resolve(err ? [] : a)));
  const bad = addresses.find((a) => !isPublicAddress(a.address));
  return bad ? privateMessage(bad.address, setting) : null;
}

/** A `lookup` for http(s).request that refuses non-public answers with PRIVATE_ADDRESS_CODE (checked when the socket connects). */
export function guardedLookup(setting: string): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !isPublicAddress(a.address));
      if (bad)
        return callback(
          Object.assign(new Error(`${hostname} ${privateMessage(bad.address, setting)}`), { code: PRIVATE_ADDRESS_CODE }),
          '',
          0,
        );
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} did not resolve`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
