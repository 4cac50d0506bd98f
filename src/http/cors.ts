/**
 * CORS (Fetch standard, "CORS protocol") for the REST API: a dashboard served from another
 * origin may call the API when its origin is listed in BIOGATE_CORS_ORIGINS. Listed origins get
 * their own origin echoed back (never `*`: requests carry an Authorization header); any other
 * origin gets no CORS header at all, so the browser keeps the response from the page.
 *
 * No credentials mode: tokens travel in the Authorization header, not in cookies, so
 * Access-Control-Allow-Credentials is not sent.
 */
import type { HttpMethod, HttpResponse } from './types.js';

/** Request headers a cross-origin caller may send (besides the CORS-safelisted ones). */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'] as const;
/** Response headers a cross-origin page may read (besides the CORS-safelisted ones). */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Allow'] as const;
/** How long a browser may cache a preflight answer, in seconds (browsers cap it: Chromium at 7200). */
export const CORS_MAX_AGE_S = 600;

export interface Cors {
  /** True when CORS is off (no origins listed). */
  readonly disabled: boolean;
  /** Headers for an actual (non-preflight) response to a request with this Origin header. */
  headersFor(origin: string | undefined): Record<string, string>;
  /** The answer to an OPTIONS request on a path that serves `methods`. */
  preflight(origin: string | undefined, methods: readonly HttpMethod[]): HttpResponse;
}

/** "https://A.example.com:443/" → "https://a.example.com"; undefined when not an http(s) origin. */
export function normalizeOrigin(text: string): string | undefined {
  try {
    const url = new URL(text.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** Parses the BIOGATE_CORS_ORIGINS list (already checked by the config schema). */
export function parseCorsOrigins(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => normalizeOrigin(s))
    .filter((s): s is string => s !== undefined);
}

export function createCors(origins: readonly string[]): Cors {
  const allowed = new Set(origins);
  const listed = (origin: string | undefined): string | undefined => {
    if (origin === undefined || allowed.size === 0) return undefined;
    // Browsers send the serialized origin; compare it the same way the list was normalized.
    const o = normalizeOrigin(origin);
    return o !== undefined && allowed.has(o) ? origin : undefined;
  };
  const base = (origin: string): Record<string, string> => ({
    'Access-Control-Allow-Origin': origin,
    // Caches must not hand one origin's answer to another.
    Vary: 'Origin',
  });
  return {
    disabled: allowed.size === 0,
    headersFor(origin) {
      const o = listed(origin);
      return o === undefined ? {} : { ...base(o), 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', ') };
    },
    preflight(origin, methods) {
      const allow = [...new Set<HttpMethod>([...methods, ...(methods.includes('GET') ? (['HEAD'] as const) : []), 'OPTIONS'])].join(', ');
      const o = listed(origin);
      if (o === undefined) return { status: 204, headers: { Allow: allow } };
      return {
        status: 204,
        headers: {
          ...base(o),
          Allow: allow,
          'Access-Control-Allow-Methods': allow,
          'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
          'Access-Control-Max-Age': String(CORS_MAX_AGE_S),
        },
      };
    },
  };
}
