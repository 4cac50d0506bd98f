/**
 * Signing in the way BioTime clients do (`POST /api-token-auth/`, `POST /jwt-api-token-auth/` with
 * `{"username", "password"}`), and the `Authorization: Token …` / `JWT …` schemes that follow.
 *
 * The password is a location token; the username names whose it is: the location's id or the token's
 * label. `api-token-auth` answers the token itself (BioTime's tokens never expire either; revoking the
 * location token ends it). `jwt-api-token-auth` answers a JWT (HS256, `exp` after BIOGATE_BIOTIME_JWT_TTL_S)
 * naming the token by id: every request re-reads that token, so revoking, expiring or disabling acts at
 * once. The signing key is derived from a random secret kept in the store, so every node accepts what any
 * node signed, and the store's token hashes alone cannot forge one.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { accepted, type Caller } from '../auth/authenticate.js';
import type { Credentials } from '../auth/credentials.js';
import { hashToken, looksLikeToken, secretsEqual } from '../auth/tokens.js';
import type { Clock } from '../clock.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { Store } from '../store/types.js';
import { readBody } from './body.js';
import { fieldErrors, unauthenticated } from './shapes.js';

const SECRET_NAME = 'biotime-jwt';
/** Longest username or password read from a sign-in body (a token is 35 characters, a label at most 100). */
const MAX_CREDENTIAL = 200;
const BAD_LOGIN = 'Unable to log in with provided credentials.';

export interface BiotimeAuth {
  /** `POST /api-token-auth/` (jwt false) and `POST /jwt-api-token-auth/` (jwt true). */
  login(req: HttpRequest, jwt: boolean): Promise<HttpResponse>;
  /** The caller of a request's Authorization header, or a 401 in BioTime's shape. */
  authenticate(req: HttpRequest): Promise<Caller>;
}

export function createBiotimeAuth(deps: { store: Store; credentials: Credentials; clock: Clock; jwtTtlS: number }): BiotimeAuth {
  const { store, credentials, clock } = deps;
  let key: Promise<Uint8Array> | undefined;
  const signingKey = () =>
    (key ??= store.secrets
      .getOrCreate(SECRET_NAME, () => randomBytes(32).toString('base64url'))
      .then((secret) => new Uint8Array(createHmac('sha256', secret).update('biotime-jwt-hs256').digest()))
      .catch((err: unknown) => {
        key = undefined; // a store outage is not remembered
        throw err;
      }));

  return {
    async login(req, jwt) {
      const { username, password } = credentialsOf(req);
      const caller = await signIn(store, username, password, clock.now());
      if (!jwt) return { status: 200, body: { token: password } };
      const now = Math.floor(clock.now().getTime() / 1000);
      const token = await new SignJWT({ user_id: caller.token.id, username, orig_iat: now })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(now)
        .setExpirationTime(now + deps.jwtTtlS)
        .sign(await signingKey());
      return { status: 200, body: { token } };
    },

    async authenticate(req) {
      const header = req.headers['authorization'];
      const m = header ? /^(Token|JWT|Bearer)[ \t]+(\S+)[ \t]*$/i.exec(header) : null;
      if (!m) throw unauthenticated(header ? 'Invalid token header.' : 'Authentication credentials were not provided.');
      const scheme = (m[1] as string).toLowerCase();
      const value = m[2] as string;
      if (scheme !== 'jwt') return credentials.authenticate(`Bearer ${value}`, clock.now());
      let tokenId: unknown;
      try {
        const { payload } = await jwtVerify(value, await signingKey(), {
          algorithms: ['HS256'],
          currentDate: clock.now(),
          requiredClaims: ['exp'],
        });
        tokenId = payload['user_id'];
      } catch (err) {
        if (err instanceof Error && err.name === 'JWTExpired') throw unauthenticated('Signature has expired.');
        if (err instanceof Error && err.name.startsWith('JW')) throw unauthenticated('Error decoding signature.');
        throw err;
      }
      const token = Number.isSafeInteger(tokenId) ? await store.tokens.get(tokenId as number) : undefined;
      if (!token) throw unauthenticated('Invalid token.');
      const location = token.revoked_at === null ? await store.locations.get(token.location_id) : undefined;
      return accepted({ token, location }, clock.now());
    },
  };
}

/** `{"username", "password"}` as JSON or as a form (a connector posts the form). Missing ones: DRF's field errors. */
function credentialsOf(req: HttpRequest): { username: string; password: string } {
  const body = readBody(req);
  const errors: Record<string, string[]> = {};
  const field = (name: string): string => {
    const value = body[name];
    if (typeof value !== 'string' || value.trim() === '') errors[name] = ['This field is required.'];
    else if (value.length > MAX_CREDENTIAL) errors[name] = [`Ensure this field has no more than ${MAX_CREDENTIAL} characters.`];
    return typeof value === 'string' ? value.trim() : '';
  };
  const username = field('username');
  const password = field('password');
  if (Object.keys(errors).length > 0) throw fieldErrors(errors);
  return { username, password };
}

/** The location token `password` names, if `username` is its location's id or its label; else DRF's 400. */
async function signIn(store: Store, username: string, password: string, now: Date): Promise<Caller> {
  const refused = () => fieldErrors({ non_field_errors: [BAD_LOGIN] });
  if (!looksLikeToken(password)) throw refused();
  const hash = hashToken(password);
  const token = await store.tokens.findByHash(hash);
  if (!token || !secretsEqual(token.hash, hash) || token.revoked_at !== null) throw refused();
  const location = await store.locations.get(token.location_id);
  if (!location) throw refused();
  const named = username === String(location.id) || (token.label !== null && secretsEqual(username, token.label));
  if (!named) throw refused();
  try {
    return accepted({ token, location }, now);
  } catch {
    throw refused();
  }
}
