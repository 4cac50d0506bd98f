/**
 * The admin token (BIOGATE_ADMIN_TOKEN): it guards /admin/…, /metrics when set [API-CONTRACT §7], and
 * the MQTT user `admin`. One check for all three, with one back-off per client address on wrong
 * tokens (failure-backoff.ts): after FREE_FAILURES failures an address is refused (429
 * RATE_LIMITED with Retry-After; a CONNACK refusal on MQTT) until its back-off has passed.
 */
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import { createFailureBackoff, type FailureBackoff } from './failure-backoff.js';
import { bearer, secretsEqual } from './tokens.js';

/** What an attempt with the admin token came to. */
export type AdminVerdict =
  { readonly kind: 'ok' } | { readonly kind: 'refused' } | { readonly kind: 'throttled'; readonly retryAfterS: number };

export interface AdminAuth {
  /** Whether an admin token is configured (without one the admin API does not exist). */
  readonly configured: boolean;
  /**
   * An HTTP request's Authorization header from `address`.
   * @throws NOT_FOUND when no admin token is configured, RATE_LIMITED while the address backs off,
   * UNAUTHORIZED when the bearer token is not the admin token.
   */
  check(authorization: string | undefined, address: string): void;
  /** A secret presented some other way (the MQTT password of user `admin`) from `address`. */
  verify(secret: string, address: string): AdminVerdict;
  /**
   * A scrape of /metrics: open when neither the admin token nor the read-only metrics token
   * (BIOGATE_METRICS_TOKEN) is configured, else either one; wrong tokens share the admin back-off.
   * @throws RATE_LIMITED while the address backs off, UNAUTHORIZED for a missing or wrong token.
   */
  checkMetrics(authorization: string | undefined, address: string): void;
}

export function createAdminAuth(
  adminToken: string | null,
  clock: Clock,
  backoff: FailureBackoff = createFailureBackoff(clock),
  metricsToken: string | null = null,
): AdminAuth {
  const verifyAgainst = (accepted: readonly string[], secret: string | undefined, address: string): AdminVerdict => {
    const wait = backoff.waitMs(address);
    if (wait > 0) return { kind: 'throttled', retryAfterS: Math.ceil(wait / 1000) };
    // Every accepted token is compared (constant time each), so the answer's timing does not say which matched.
    const matched = secret !== undefined && accepted.map((token) => secretsEqual(secret, token)).includes(true);
    if (matched) {
      backoff.succeeded(address);
      return { kind: 'ok' };
    }
    backoff.failed(address);
    return { kind: 'refused' };
  };
  const admins = adminToken === null ? [] : [adminToken];
  const scrapers = [...admins, ...(metricsToken === null ? [] : [metricsToken])];
  const demand = (accepted: readonly string[], authorization: string | undefined, address: string, realm: string, what: string) => {
    const verdict = authorization === undefined ? undefined : verifyAgainst(accepted, bearer(authorization) ?? '', address);
    if (verdict?.kind === 'ok') return;
    if (verdict?.kind === 'throttled') {
      throw new BioGateError('RATE_LIMITED', 'Too many wrong tokens from this address; retry later', {
        headers: { 'Retry-After': String(verdict.retryAfterS) },
      });
    }
    throw new BioGateError('UNAUTHORIZED', `${what} required`, { headers: { 'WWW-Authenticate': `Bearer realm="${realm}"` } });
  };
  return {
    configured: adminToken !== null,
    check(authorization, address) {
      // The admin API does not exist when no admin token is configured.
      if (adminToken === null) throw new BioGateError('NOT_FOUND', 'The admin API is disabled (set BIOGATE_ADMIN_TOKEN)');
      demand(admins, authorization, address, 'biogate-admin', 'Admin token');
    },
    checkMetrics(authorization, address) {
      if (scrapers.length === 0) return;
      demand(scrapers, authorization, address, 'biogate-metrics', 'Metrics token (BIOGATE_METRICS_TOKEN) or admin token');
    },
    verify: (secret, address) => verifyAgainst(admins, secret, address),
  };
}
