/**
 * The webhook destination policy over the address guard (src/net/address-guard.ts): a destination
 * URL is https:// (http:// with BIOGATE_WEBHOOK_ALLOW_HTTP=on), carries no credentials, and reaches
 * no loopback, link-local or private address unless BIOGATE_WEBHOOK_ALLOW_PRIVATE=on, checked on the
 * literal host when created and on the resolved address when created and when connecting.
 */
import type { LookupFunction } from 'node:net';
import { guardedLookup as guarded, literalProblem, privateMessage as message, resolvedHostProblem, hostOf } from '../net/address-guard.js';

const PRIVATE_SETTING = 'BIOGATE_WEBHOOK_ALLOW_PRIVATE';

export interface DestinationPolicy {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
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
  return policy.allowPrivate ? null : literalProblem(url, PRIVATE_SETTING);
}

export const privateMessage = (address: string): string => message(address, PRIVATE_SETTING);

/** Resolves the URL's host and answers why it is refused (private address), or null. A name that does not resolve passes (delivery retries). */
export async function resolvedProblem(text: string, policy: DestinationPolicy): Promise<string | null> {
  if (policy.allowPrivate) return null;
  return resolvedHostProblem(hostOf(new URL(text)), PRIVATE_SETTING);
}

/** A `lookup` for http.request that refuses non-public answers (checked when the socket connects); undefined when private addresses are allowed. */
export function guardedLookup(policy: DestinationPolicy): LookupFunction | undefined {
  return policy.allowPrivate ? undefined : guarded(PRIVATE_SETTING);
}
