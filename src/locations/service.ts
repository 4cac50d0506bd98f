/**
 * Locations and their tokens: the operations shared by the CLI, the admin API
 * and the bootstrap. Token text is returned once, here, and never stored.
 */
import { BioGateError, invalid } from '../errors.js';
import { generateToken, hashToken } from '../auth/tokens.js';
import type { Clock } from '../clock.js';
import type { Store } from '../store/types.js';
import type { Location, LocationSetting, Token, TokenScope } from '../store/ports/index.js';
import { isTimeZone } from '../time/zones.js';

export const TOKEN_SCOPES: readonly TokenScope[] = ['full', 'operator', 'read'];

export interface IssuedToken {
  readonly id: number;
  readonly token: string;
  readonly location_id: number;
  readonly scope: TokenScope;
  readonly expires_at: string | null;
}

/** What an operator may change of a location (admin API, CLI). */
export type LocationPatch = Partial<Pick<Location, LocationSetting>>;

/** Bounds of the time-card settings (issue #35): a repeat within up to an hour; a day that starts at 00–23 h. */
export const MAX_DEBOUNCE_S = 3_600;
/** The longest a location keeps punch photos (10 years). */
export const MAX_PHOTO_RETENTION_DAYS = 3_650;

function checkWhole(value: number, min: number, max: number, loc: (string | number)[]): number {
  if (!Number.isInteger(value) || value < min || value > max) throw invalid(loc, `must be a whole number from ${min} to ${max}`, 'range');
  return value;
}

export interface LocationService {
  create(input: { name: string; timezone?: string; require_comm_key?: boolean }): Promise<{ location: Location; token: IssuedToken }>;
  list(): Promise<readonly Location[]>;
  get(id: number): Promise<Location>;
  update(id: number, patch: LocationPatch): Promise<Location>;
  issueToken(input: {
    location_id: number;
    scope?: TokenScope;
    expires_in_days?: number | null;
    label?: string | null;
  }): Promise<IssuedToken>;
  revokeToken(id: number): Promise<Token>;
  listTokens(locationId?: number): Promise<readonly Token[]>;
  /** A location changed outside update() (a scenario: src/commands/scenarios.ts): the same hooks as an update. */
  changed(location: Location): void;
}

function checkName(name: string, loc: (string | number)[]): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 200) throw invalid(loc, 'must be 1 to 200 characters', 'length');
  return trimmed;
}

function checkZone(tz: string, loc: (string | number)[]): string {
  if (!isTimeZone(tz)) throw invalid(loc, `unknown IANA time zone "${tz}"`, 'enum');
  return tz;
}

export interface LocationHooks {
  /** After an update that changed the time zone or re-enabled the location (time sync, sync/time-sync.ts). */
  readonly timeZoneChanged?: (location: Location) => Promise<unknown>;
  /** After any update (the device hub and the API's credentials drop what they knew of the location). */
  readonly changed?: (location: Location) => void;
  /** After a token was revoked (the API's credentials drop it). */
  readonly tokenRevoked?: (token: Token) => void;
}

export function createLocationService(store: Store, clock: Clock, hooks: LocationHooks = {}): LocationService {
  const now = () => clock.now().toISOString();
  const service: LocationService = {
    async create(input) {
      const name = checkName(input.name, ['body', 'name']);
      const timezone = checkZone(input.timezone ?? 'UTC', ['body', 'timezone']);
      const location = await store.locations.create(
        { name, timezone, ...(input.require_comm_key !== undefined ? { require_comm_key: input.require_comm_key } : {}) },
        now(),
      );
      const token = await service.issueToken({ location_id: location.id, label: 'initial' });
      return { location, token };
    },
    list: () => store.locations.list(),
    async get(id) {
      const location = await store.locations.get(id);
      if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${id} not found`);
      return location;
    },
    changed(location) {
      hooks.changed?.(location);
    },
    async update(id, patch) {
      const clean: { -readonly [K in keyof LocationPatch]: LocationPatch[K] } = {};
      if (patch.name !== undefined) clean.name = checkName(patch.name, ['body', 'name']);
      if (patch.timezone !== undefined) clean.timezone = checkZone(patch.timezone, ['body', 'timezone']);
      if (patch.is_active !== undefined) clean.is_active = patch.is_active;
      if (patch.require_comm_key !== undefined) clean.require_comm_key = patch.require_comm_key;
      if (patch.attendance_debounce_s !== undefined)
        clean.attendance_debounce_s = checkWhole(patch.attendance_debounce_s, 0, MAX_DEBOUNCE_S, ['body', 'attendance_debounce_s']);
      if (patch.day_start_hour !== undefined) clean.day_start_hour = checkWhole(patch.day_start_hour, 0, 23, ['body', 'day_start_hour']);
      if (patch.attendance_photos !== undefined) clean.attendance_photos = patch.attendance_photos;
      if (patch.attendance_photo_retention_days !== undefined)
        clean.attendance_photo_retention_days = checkWhole(patch.attendance_photo_retention_days, 1, MAX_PHOTO_RETENTION_DAYS, [
          'body',
          'attendance_photo_retention_days',
        ]);
      const before = await store.locations.get(id);
      const location = await store.locations.update(id, clean, now());
      if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${id} not found`);
      hooks.changed?.(location);
      if (before && (before.timezone !== location.timezone || (!before.is_active && location.is_active)))
        await hooks.timeZoneChanged?.(location);
      return location;
    },
    async issueToken(input) {
      await service.get(input.location_id);
      const scope = input.scope ?? 'full';
      if (!TOKEN_SCOPES.includes(scope)) throw invalid(['body', 'scope'], `must be one of ${TOKEN_SCOPES.join(', ')}`, 'enum');
      const days = input.expires_in_days ?? null;
      if (days !== null && (!Number.isInteger(days) || days < 1 || days > 3650))
        throw invalid(['body', 'expires_in_days'], 'must be between 1 and 3650', 'range');
      const issuedAt = clock.now();
      const expires_at = days === null ? null : new Date(issuedAt.getTime() + days * 86_400_000).toISOString();
      const token = generateToken();
      const record = await store.tokens.create(
        { location_id: input.location_id, hash: hashToken(token), scope, label: input.label ?? null, expires_at },
        issuedAt.toISOString(),
      );
      return { id: record.id, token, location_id: record.location_id, scope, expires_at };
    },
    async revokeToken(id) {
      const token = await store.tokens.revoke(id, now());
      if (!token) throw new BioGateError('TOKEN_NOT_FOUND', `Token ${id} not found`);
      hooks.tokenRevoked?.(token);
      return token;
    },
    listTokens: (locationId) => store.tokens.list(locationId),
  };
  return service;
}
