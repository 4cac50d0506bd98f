/**
 * `biogate location …`, `token …`, `config` [API-CONTRACT §4]. They open the store named by
 * BIOGATE_STORE directly, so they work while the server runs, and the server sees their
 * changes at once (it reads tokens and locations per request).
 */
import { describeConfig, loadConfigWithSources } from '../config/load.js';
import { SETTINGS, type SettingKey } from '../config/schema.js';
import { configTableMarkdown } from '../config/readme-table.js';
import { systemClock } from '../clock.js';
import { createLocationService, MAX_DEBOUNCE_S, MAX_PHOTO_RETENTION_DAYS, TOKEN_SCOPES, type LocationPatch } from '../locations/service.js';
import { locationView } from '../views/location.js';
import { publicToken } from '../views/token.js';
import type { Store } from '../store/types.js';
import type { Location, TokenScope } from '../store/ports/index.js';
import { UsageError, type Flags } from './args.js';
import { json, print, withStore, type CliIo } from './io.js';

/** The location as GET /admin/locations shows it (one view for every door). */
const locationJson = (store: Store, l: Location) => locationView(store, l);

export async function locationCreate(f: Flags, io: CliIo): Promise<number> {
  const name = f.string('name', true) as string;
  const timezone = f.string('timezone');
  const requireCommKey = f.onOff('require-comm-key');
  return withStore(io, async (store) => {
    const { location, token } = await createLocationService(store, systemClock).create({
      name,
      ...(timezone !== undefined ? { timezone } : {}),
      ...(requireCommKey !== undefined ? { require_comm_key: requireCommKey } : {}),
    });
    if (f.flag('json')) print(io, json({ location: await locationJson(store, location), token: token.token }));
    else print(io, `Created location ${location.id} "${location.name}" (${location.timezone}).\nToken (shown once): ${token.token}`);
    return 0;
  });
}

export async function locationList(f: Flags, io: CliIo): Promise<number> {
  return withStore(io, async (store) => {
    const all = await Promise.all((await store.locations.list()).map((l) => locationJson(store, l)));
    if (f.flag('json')) print(io, json(all));
    else if (all.length === 0) print(io, 'No locations.');
    else
      for (const l of all)
        print(
          io,
          `${l.id}\t${l.is_active ? 'active  ' : 'disabled'}\t${l.timezone}\t${l.users_count} users\t${l.devices_count} devices\t${l.name}`,
        );
    return 0;
  });
}

export async function locationUpdate(f: Flags, io: CliIo): Promise<number> {
  const id = f.int('id', { required: true, min: 1 }) as number;
  const patch: { -readonly [K in keyof LocationPatch]: LocationPatch[K] } = {};
  const name = f.string('name');
  const timezone = f.string('timezone');
  const requireCommKey = f.onOff('require-comm-key');
  const debounce = f.int('attendance-debounce-s', { min: 0, max: MAX_DEBOUNCE_S });
  const dayStart = f.int('day-start-hour', { min: 0, max: 23 });
  const photos = f.onOff('attendance-photos');
  const photoDays = f.int('attendance-photo-retention-days', { min: 1, max: MAX_PHOTO_RETENTION_DAYS });
  if (name !== undefined) patch.name = name;
  if (timezone !== undefined) patch.timezone = timezone;
  if (requireCommKey !== undefined) patch.require_comm_key = requireCommKey;
  if (debounce !== undefined) patch.attendance_debounce_s = debounce;
  if (dayStart !== undefined) patch.day_start_hour = dayStart;
  if (photos !== undefined) patch.attendance_photos = photos;
  if (photoDays !== undefined) patch.attendance_photo_retention_days = photoDays;
  if (Object.keys(patch).length === 0)
    throw new UsageError(
      'give --name, --timezone, --require-comm-key, --attendance-debounce-s, --day-start-hour, --attendance-photos and/or --attendance-photo-retention-days',
    );
  return withStore(io, async (store, _config, announce) => {
    const l = await createLocationService(store, systemClock, { changed: (changed) => announce.locationChanged(changed.id) }).update(
      id,
      patch,
    );
    print(io, f.flag('json') ? json(await locationJson(store, l)) : `Updated location ${l.id} "${l.name}" (${l.timezone}).`);
    return 0;
  });
}

export function locationSetActive(active: boolean) {
  return async (f: Flags, io: CliIo): Promise<number> => {
    const id = f.int('id', { required: true, min: 1 }) as number;
    return withStore(io, async (store, _config, announce) => {
      const l = await createLocationService(store, systemClock, { changed: (changed) => announce.locationChanged(changed.id) }).update(id, {
        is_active: active,
      });
      print(io, `Location ${l.id} "${l.name}" ${active ? 'enabled' : 'disabled'}.`);
      return 0;
    });
  };
}

export async function tokenCreate(f: Flags, io: CliIo): Promise<number> {
  const location_id = f.int('location', { required: true, min: 1 }) as number;
  const days = f.int('expires-in', { min: 1, max: 3650 }) ?? null;
  const scope = (f.string('scope') ?? 'full') as TokenScope;
  if (!TOKEN_SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${TOKEN_SCOPES.join(', ')}`);
  return withStore(io, async (store) => {
    const t = await createLocationService(store, systemClock).issueToken({
      location_id,
      scope,
      expires_in_days: days,
      label: f.string('label') ?? null,
    });
    if (f.flag('json')) print(io, json({ id: t.id, token: t.token, location_id: t.location_id, scope: t.scope, expires_at: t.expires_at }));
    else
      print(
        io,
        `Token ${t.id} for location ${t.location_id} (${t.scope}${t.expires_at ? `, expires ${t.expires_at}` : ''}), shown once:\n${t.token}`,
      );
    return 0;
  });
}

export async function tokenList(f: Flags, io: CliIo): Promise<number> {
  const location = f.int('location', { min: 1 });
  return withStore(io, async (store) => {
    const tokens = (await createLocationService(store, systemClock).listTokens(location)).map(publicToken);
    if (f.flag('json')) print(io, json(tokens));
    else
      for (const t of tokens)
        print(
          io,
          `${t.id}\tlocation ${t.location_id}\t${t.scope}\t${t.revoked_at ? 'revoked' : t.expires_at ? `expires ${t.expires_at}` : 'active'}\t${t.label ?? ''}`,
        );
    return 0;
  });
}

export async function tokenRevoke(f: Flags, io: CliIo): Promise<number> {
  const id = f.int('id', { required: true, min: 1 }) as number;
  return withStore(io, async (store, _config, announce) => {
    const t = await createLocationService(store, systemClock, { tokenRevoked: (revoked) => announce.tokenRevoked(revoked.id) }).revokeToken(
      id,
    );
    print(io, `Token ${t.id} revoked at ${t.revoked_at ?? ''}.`);
    return 0;
  });
}

export async function configShow(f: Flags, io: CliIo): Promise<number> {
  if (f.flag('markdown')) {
    print(io, configTableMarkdown());
    return 0;
  }
  const { config, sources } = loadConfigWithSources({ env: io.env });
  const shown = describeConfig(config);
  const rows = (Object.keys(SETTINGS) as SettingKey[]).map((key) => ({
    env: SETTINGS[key].meta.env,
    value: shown[key],
    source: sources[key] === 'file' ? `file ${io.env['BIOGATE_CONFIG'] ?? ''}`.trim() : sources[key],
  }));
  if (f.flag('json')) {
    print(io, json(Object.fromEntries(rows.map((r) => [r.env, { value: r.value, source: r.source }]))));
    return 0;
  }
  // One line a setting, as an operator sets it: the environment name, the value (secrets masked), and where it came from.
  const text = (v: unknown) => (v === null ? '(unset)' : typeof v === 'string' ? v : JSON.stringify(v));
  const width = (pick: (r: (typeof rows)[number]) => string) => Math.max(...rows.map((r) => pick(r).length));
  const nameW = width((r) => r.env);
  const valueW = Math.min(
    60,
    width((r) => text(r.value)),
  );
  print(io, `${'SETTING'.padEnd(nameW)}  ${'VALUE'.padEnd(valueW)}  SOURCE`);
  for (const r of rows) print(io, `${r.env.padEnd(nameW)}  ${text(r.value).padEnd(valueW)}  ${r.source}`);
  return 0;
}
