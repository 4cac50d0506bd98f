/**
 * Names for what the API lists by key: terminals by serial number (every device of the location, paged at 100) and
 * people by PIN (GET /api/users/{pin} for the PINs on screen, each asked once per page view; a PIN without a user,
 * deleted or never enrolled, stays a PIN).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, query } from './api.js';
import type { Device, Reply, User } from './api-types.js';

/** Every device of the location (the API pages at 100). */
export async function allDevices(token: string): Promise<Device[]> {
  const out: Device[] = [];
  for (let page = 1; page <= 100; page++) {
    const p = await api<Reply<'/api/devices', 'get'>>(token, 'GET', `/api/devices${query({ page, limit: 100 })}`);
    out.push(...p.data);
    if (!p.has_next) break;
  }
  return out;
}

/** Serial number → the terminal's name (null when it has none), loaded once. */
export function useDeviceNames(token: string): ReadonlyMap<string, string | null> {
  const [names, setNames] = useState<ReadonlyMap<string, string | null>>(new Map());
  useEffect(() => {
    let live = true;
    allDevices(token).then(
      (list) => live && setNames(new Map(list.map((d) => [d.serial_number, d.name]))),
      () => undefined, // names are a convenience: serial numbers stay on screen
    );
    return () => {
      live = false;
    };
  }, [token]);
  return names;
}

/** "First Last", or null without a name. */
export function personName(u: Pick<User, 'first_name' | 'last_name'>): string | null {
  return [u.first_name, u.last_name].filter(Boolean).join(' ') || null;
}

/** PIN → the person's name (null: no user or no name) for `pins`, asked for as they appear. */
export function usePeopleNames(token: string, pins: readonly string[]): ReadonlyMap<string, string | null> {
  const [names, setNames] = useState<ReadonlyMap<string, string | null>>(new Map());
  const key = [...new Set(pins)].sort().join(',');
  useEffect(() => {
    const missing = key.split(',').filter((pin) => /^\d{1,9}$/.test(pin) && !names.has(pin));
    if (missing.length === 0) return;
    let live = true;
    void Promise.all(
      missing.map((pin) =>
        api<User>(token, 'GET', `/api/users/${pin}`).then(
          (u) => [pin, personName(u)] as const,
          () => [pin, null] as const,
        ),
      ),
    ).then((found) => live && setNames((old) => new Map([...old, ...found])));
    return () => {
      live = false;
    };
  }, [token, key]);
  return names;
}
