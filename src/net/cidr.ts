/**
 * CIDR parsing and matching for IPv4 and IPv6, shared by the per-device allow-lists
 * (src/devices/networks.ts) and the trusted-proxy list (src/http/client-address.ts). It lives here,
 * below both, because src/http may not import from src/devices (DESIGN.md dependency direction).
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, how a dual-stack socket may report an IPv4 peer)
 * matches IPv4 networks.
 */
import { isIP } from 'node:net';

interface Network {
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

function ipv4Bytes(text: string): Uint8Array | undefined {
  if (isIP(text) !== 4) return undefined;
  return Uint8Array.from(text.split('.').map(Number));
}

function ipv6Bytes(text: string): Uint8Array | undefined {
  const zone = text.indexOf('%');
  const addr = zone < 0 ? text : text.slice(0, zone);
  if (isIP(addr) !== 6) return undefined;
  let tail: number[] = [];
  let body = addr;
  const lastColon = addr.lastIndexOf(':');
  if (addr.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4Bytes(addr.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = [...v4];
    body = addr.slice(0, lastColon + 1) + '0:0';
  }
  const [head, rest] = body.includes('::') ? (body.split('::') as [string, string]) : [body, undefined];
  const words = (s: string) => (s === '' ? [] : s.split(':').map((w) => Number.parseInt(w, 16)));
  const left = words(head);
  const right = rest === undefined ? [] : words(rest);
  const all = rest === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (all.length !== 8) return undefined;
  const out = new Uint8Array(16);
  all.forEach((w, i) => {
    out[2 * i] = w >> 8;
    out[2 * i + 1] = w & 0xff;
  });
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

/** The address as bytes: 4 for IPv4 (and IPv4-mapped IPv6), 16 for IPv6; undefined when not an address. */
export function addressBytes(text: string): Uint8Array | undefined {
  const v4 = ipv4Bytes(text);
  if (v4) return v4;
  const v6 = ipv6Bytes(text);
  if (!v6) return undefined;
  const mapped = v6.subarray(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

function parseCidr(text: string): Network | undefined {
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const bytes = ipv4Bytes(addr) ?? ipv6Bytes(addr);
  if (!bytes || addr.includes('%')) return undefined;
  const max = bytes.length * 8;
  const prefixText = slash < 0 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  return prefix > max ? undefined : { bytes, prefix };
}

function format(n: Network): string {
  if (n.bytes.length === 4) return `${[...n.bytes].join('.')}/${n.prefix}`;
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push((((n.bytes[i] as number) << 8) | (n.bytes[i + 1] as number)).toString(16));
  // Longest run of zero words (two or more) becomes `::` (RFC 5952).
  let best = [-1, 0];
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === '0') j++;
    if (j - i > (best[1] as number) && j - i >= 2) best = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const [start, len] = best as [number, number];
  const text = start < 0 ? words.join(':') : `${words.slice(0, start).join(':')}::${words.slice(start + len).join(':')}`;
  return `${text}/${n.prefix}`;
}

function masked(n: Network): Network {
  const bytes = Uint8Array.from(n.bytes);
  for (let bit = n.prefix; bit < bytes.length * 8; bit++) bytes[bit >> 3] = (bytes[bit >> 3] as number) & ~(0x80 >> (bit & 7));
  return { bytes, prefix: n.prefix };
}

/**
 * The canonical form of a CIDR (`10.1.2.3/8` → `10.0.0.0/8`, a bare address gets /32 or /128), or
 * undefined when it is not one.
 */
export function canonicalCidr(text: string): string | undefined {
  const n = parseCidr(text.trim());
  return n && format(masked(n));
}

/** Whether `address` lies in one of the (canonical) networks. A malformed address matches nothing. */
export function inNetworks(address: string, networks: readonly string[]): boolean {
  return networkMatcher(networks)(address);
}

/**
 * A matcher for a fixed list, parsed once (the trusted-proxy check runs on every request).
 * Entries that are not CIDRs match nothing; validate lists with canonicalCidr first.
 */
export function networkMatcher(networks: readonly string[]): (address: string) => boolean {
  const parsed = networks.map(parseCidr).filter((n): n is Network => n !== undefined);
  return (address) => {
    const addr = addressBytes(address);
    return addr !== undefined && parsed.some((n) => contains(n, addr));
  };
}

function contains(n: Network, addr: Uint8Array): boolean {
  if (n.bytes.length !== addr.length) return false;
  for (let bit = 0; bit < n.prefix; bit += 8) {
    const bits = Math.min(8, n.prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if (((addr[bit >> 3] as number) & mask) !== ((n.bytes[bit >> 3] as number) & mask)) return false;
  }
  return true;
}

/**
 * A comma-separated list of addresses/CIDRs (BIOGATE_TRUSTED_PROXIES) in canonical form, and the
 * entries that are neither (the config loader reports those). Empty entries are ignored.
 */
export function parseCidrList(text: string): { readonly networks: string[]; readonly invalid: string[] } {
  const networks: string[] = [];
  const invalid: string[] = [];
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const canonical = canonicalCidr(entry);
    if (canonical === undefined) invalid.push(entry);
    else networks.push(canonical);
  }
  return { networks, invalid };
}
