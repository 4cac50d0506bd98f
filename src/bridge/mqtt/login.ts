/**
 * MQTT CONNECT credentials → an Identity: username = location id and password = one
 * of its API tokens, checked by the same authenticate() as the REST API (hash lookup, constant-time
 * compare, revoked/expired/disabled); or username `admin` with BIOGATE_ADMIN_TOKEN, through the admin
 * check HTTP uses, so wrong admin passwords count towards the same back-off per client address.
 */
import { authenticate } from '../../auth/authenticate.js';
import type { AdminAuth } from '../../auth/admin-token.js';
import type { Clock } from '../../clock.js';
import { BioGateError } from '../../errors.js';
import type { Store } from '../../store/types.js';
import type { Identity } from './acl.js';

/** CONNACK return codes [MQTT-3.1.1 §3.2.2.3]. */
export const CONNACK = { serverUnavailable: 3, badCredentials: 4, notAuthorized: 5 } as const;

export class LoginRefused extends Error {
  constructor(
    readonly returnCode: 3 | 4 | 5,
    message: string,
  ) {
    super(message);
  }
}

export interface LoginDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly admin: AdminAuth;
}

/** `address`: the client's address, for the admin back-off. */
export async function login(
  deps: LoginDeps,
  username: string | undefined,
  password: Buffer | undefined,
  address: string,
): Promise<Identity> {
  const secret = password?.toString('utf8') ?? '';
  if (!username || secret === '') throw new LoginRefused(CONNACK.badCredentials, 'username and password required');
  if (username === 'admin') {
    const verdict = deps.admin.verify(secret, address);
    // A throttled address is refused whatever it sent: 5 (not authorized) until its back-off has passed.
    if (verdict.kind === 'throttled')
      throw new LoginRefused(CONNACK.notAuthorized, `too many wrong admin tokens from this address; retry in ${verdict.retryAfterS} s`);
    if (verdict.kind === 'refused') throw new LoginRefused(CONNACK.badCredentials, 'bad admin credentials');
    return { kind: 'admin' };
  }
  if (!/^[1-9][0-9]{0,15}$/.test(username)) throw new LoginRefused(CONNACK.badCredentials, 'username must be a location id or admin');
  try {
    const caller = await authenticate(deps.store, `Bearer ${secret}`, deps.clock.now());
    // A token of location 2 presented as location 1 is a wrong password, not a way in.
    if (caller.location.id !== Number(username)) throw new LoginRefused(CONNACK.badCredentials, 'token does not belong to this location');
    return { kind: 'location', locationId: caller.location.id, tokenId: caller.token.id, scope: caller.token.scope, token: secret };
  } catch (err) {
    if (err instanceof LoginRefused) throw err;
    if (err instanceof BioGateError) {
      if (err.code === 'UNAUTHORIZED') throw new LoginRefused(CONNACK.badCredentials, err.message);
      if (err.code === 'LOCATION_DISABLED') throw new LoginRefused(CONNACK.notAuthorized, err.message);
      if (err.code === 'STORE_UNAVAILABLE') throw new LoginRefused(CONNACK.serverUnavailable, err.message);
    }
    throw err;
  }
}

/** Whether a location client's token still logs in (not revoked or expired, location active); the store being away is not a no. */
export async function stillValid(deps: LoginDeps, identity: Extract<Identity, { kind: 'location' }>): Promise<boolean> {
  try {
    const caller = await authenticate(deps.store, `Bearer ${identity.token}`, deps.clock.now());
    return caller.location.id === identity.locationId;
  } catch (err) {
    if (err instanceof BioGateError && (err.code === 'UNAUTHORIZED' || err.code === 'LOCATION_DISABLED')) return false;
    throw err;
  }
}
