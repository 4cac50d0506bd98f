/**
 * `GET /biotime/iclock/api/terminals/` and `…/{id}/`: the location's terminals as BioTime lists them.
 * `state` is 1 while the terminal polls (on any node), 0 otherwise; the counts are what the terminal
 * last reported (null before it has); `area_code` is the area's id, BioGate's areas having no code.
 */
import type { Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { Device } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { offsetMinutes } from '../time/zones.js';
import { isOnline } from '../views/device-status.js';
import { localTime } from './format.js';
import { envelope, pageOf, positiveInt } from './paging.js';
import { idOf, PREFIX, type BiotimeRoute } from './route.js';
import { notFound } from './shapes.js';

export interface TerminalDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly secure: boolean;
  readonly onlineThresholdS: number;
  /** The live last-seen of a terminal polling this node (newer than the stored one), and whether another node holds it. */
  readonly liveLastSeen: (sn: string) => string | undefined;
  readonly onlineElsewhere: (sn: string) => boolean;
}

export function terminalRoutes(deps: TerminalDeps): BiotimeRoute[] {
  const { store } = deps;
  const path = `${PREFIX}/iclock/api/terminals/`;
  const all = async (caller: Caller) => {
    const devices = [...(await store.devices.listAssigned(caller.location.id))].sort((a, b) => a.id - b.id);
    const areas = await store.areas.names(caller.location.id);
    return devices.map((d) => terminal(deps, caller, d, areas));
  };
  return [
    {
      method: 'GET',
      path,
      handler: async (req, caller) => {
        const p = pageOf(req);
        const q = req.query;
        const area = positiveInt(req, 'area');
        const state = q.get('state');
        const matching = (await all(caller)).filter(
          (t) =>
            (!q.get('sn') || t.sn === q.get('sn')) &&
            (!q.get('alias') || t.alias === q.get('alias')) &&
            (!q.get('sn_icontains') || t.sn.toLowerCase().includes((q.get('sn_icontains') ?? '').toLowerCase())) &&
            (!q.get('alias_icontains') || t.alias.toLowerCase().includes((q.get('alias_icontains') ?? '').toLowerCase())) &&
            (area === undefined || t.area?.id === area) &&
            (!state || String(t.state) === state),
        );
        const start = p.window.offset;
        return { status: 200, body: envelope(req, deps.secure, p, matching.length, matching.slice(start, start + p.size)) };
      },
    },
    {
      method: 'GET',
      path: `${path}:id/`,
      handler: async (req, caller) => {
        const id = idOf(req);
        const found = (await all(caller)).find((t) => t.id === id);
        if (!found) throw notFound();
        return { status: 200, body: found };
      },
    },
  ];
}

const count = (options: Readonly<Record<string, string>> | null, key: string): number | null => {
  const raw = options?.[key];
  return raw !== undefined && /^\d{1,9}$/.test(raw) ? Number(raw) : null;
};

function terminal(deps: TerminalDeps, caller: Caller, d: Device, areas: ReadonlyMap<number, string>) {
  const now = deps.clock.now();
  const tz = caller.location.timezone;
  const live = deps.liveLastSeen(d.serial_number);
  const lastSeen = live && (!d.last_seen || live > d.last_seen) ? live : d.last_seen;
  const online = isOnline(lastSeen, now, deps.onlineThresholdS) || deps.onlineElsewhere(d.serial_number);
  const options = d.options;
  const areaName = d.area_id === null ? null : (areas.get(d.area_id) ?? null);
  return {
    id: d.id,
    sn: d.serial_number,
    ip_address: d.last_address,
    alias: d.name,
    terminal_name: d.name,
    fw_ver: options?.['FWVersion'] ?? options?.['FirmVer'] ?? null,
    push_ver: options?.['PushVersion'] ?? d.version,
    state: online ? 1 : 0,
    terminal_tz: offsetMinutes(now, tz) / 60,
    area: d.area_id === null ? null : { id: d.area_id, area_code: String(d.area_id), area_name: areaName },
    area_name: areaName,
    last_activity: localTime(lastSeen, tz),
    user_count: count(options, 'UserCount'),
    fp_count: count(options, 'FPCount'),
    face_count: count(options, 'FaceCount'),
    palm_count: count(options, 'PvCount'),
    transaction_count: count(options, 'TransactionCount'),
    push_time: localTime(d.registered_at, tz),
    transfer_time: '00:00;14:05',
    transfer_interval: 1,
    is_attendance: 1,
  };
}
