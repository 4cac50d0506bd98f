/**
 * `GET /biotime/iclock/api/transactions/` and `…/{id}/`: the location's punches as BioTime lists them.
 * The default order is by id, ascending (arrival order), so a client that follows `next` to the end, or
 * reads with `id__gt`, sees every punch once while punches keep arriving: arrival-order reads are the
 * attendance feed's (AttendancePort.listAfter), which on MongoDB show a punch once its write has settled.
 */
import type { Caller } from '../auth/authenticate.js';
import type { Clock } from '../clock.js';
import type { HttpRequest } from '../http/types.js';
import type { Attendance, AttendanceFilter, AttendanceOrder, Device } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import { localToUtc } from '../time/zones.js';
import { MANUAL_VERIFY } from '../views/attendance.js';
import { localTime, punchStateDisplay, verifyTypeDisplay } from './format.js';
import { envelope, pageOf, positiveInt } from './paging.js';
import { idOf, PREFIX, type BiotimeRoute } from './route.js';
import { fieldError, notFound } from './shapes.js';

const ORDERING: Readonly<Record<string, AttendanceOrder>> = {
  // Ids follow arrival (on MongoDB with several nodes, ids are handed out in blocks per node: arrival order is
  // then upload time, then id); upload order is arrival order.
  id: 'arrival',
  '-id': '-arrival',
  punch_time: 'time',
  '-punch_time': '-time',
  upload_time: 'arrival',
  '-upload_time': '-arrival',
};

const PIN = /^\d{1,9}$/;
const SERIAL = /^[A-Za-z0-9_-]{1,64}$/;

export function transactionRoutes(deps: { store: Store; clock: Clock; secure: boolean }): BiotimeRoute[] {
  const { store } = deps;
  const path = `${PREFIX}/iclock/api/transactions/`;
  return [
    {
      method: 'GET',
      path,
      handler: async (req, caller) => {
        const p = pageOf(req);
        const found = await filterOf(store, req, caller);
        if (!found) return { status: 200, body: envelope(req, deps.secure, p, 0, []) };
        const now = deps.clock.now().toISOString();
        const page = await store.attendance.list(caller.location.id, found.filter, p.window, found.order, now);
        return { status: 200, body: envelope(req, deps.secure, p, page.total, await render(store, caller, page.items)) };
      },
    },
    {
      method: 'GET',
      path: `${path}:id/`,
      handler: async (req, caller) => {
        const id = idOf(req);
        const record = id === undefined ? undefined : await store.attendance.get(caller.location.id, id);
        if (!record) throw notFound();
        return { status: 200, body: (await render(store, caller, [record]))[0] as object };
      },
    },
  ];
}

/** The store filter of the query, or undefined when it can match nothing (a terminal alias no terminal has). */
async function filterOf(
  store: Store,
  req: HttpRequest,
  caller: Caller,
): Promise<{ filter: AttendanceFilter; order: AttendanceOrder } | undefined> {
  const tz = caller.location.timezone;
  const q = req.query;
  const time = (name: string): string | undefined => {
    const raw = q.get(name);
    if (raw === null || raw === '') return undefined;
    const utc = localToUtc(raw, tz);
    if (utc === undefined) throw fieldError(name, 'Enter a valid date/time (YYYY-MM-DD HH:MM:SS).');
    return utc;
  };
  const from = time('start_time');
  const to = time('end_time');
  const empCode = q.get('emp_code');
  if (empCode && !PIN.test(empCode)) return undefined; // no PIN is spelled so
  let sn = q.get('terminal_sn') || undefined;
  if (sn !== undefined && !SERIAL.test(sn)) return undefined;
  const alias = q.get('terminal_alias');
  if (alias) {
    const named = (await store.devices.listAssigned(caller.location.id)).filter((d) => d.name === alias);
    if (named.length !== 1 || (sn !== undefined && named[0]?.serial_number !== sn)) return undefined;
    sn = named[0]?.serial_number;
  }
  const ordering = q.get('ordering') || 'id';
  const order = ORDERING[ordering];
  if (!order) throw fieldError('ordering', `Select one of: ${Object.keys(ORDERING).join(', ')}.`);
  // `id__gt`: what arrived after that punch (its id alone if it is gone), as the attendance feed's cursor.
  const afterId = positiveInt(req, 'id__gt', 0);
  const cursor = afterId === undefined ? undefined : await store.attendance.get(caller.location.id, afterId);
  const filter: AttendanceFilter = {
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(empCode ? { pin: empCode } : {}),
    ...(sn ? { sn } : {}),
    ...(cursor ? { after: { id: cursor.id, created_at: cursor.created_at } } : afterId !== undefined ? { after_id: afterId } : {}),
  };
  return { filter, order };
}

/** BioTime's transaction rows of a page: the people and terminals are read once per page. */
async function render(store: Store, caller: Caller, items: readonly Attendance[]) {
  const locationId = caller.location.id;
  const tz = caller.location.timezone;
  const pins = [...new Set(items.map((a) => Number(a.pin)).filter((n) => Number.isSafeInteger(n)))];
  const [users, devices, areas] = await Promise.all([
    pins.length > 0 ? store.users.getMany(locationId, pins) : [],
    items.some((a) => a.sn !== '') ? store.devices.listAssigned(locationId) : ([] as readonly Device[]),
    store.areas.names(locationId),
  ]);
  const byPin = new Map(users.map((u) => [String(u.pin), u]));
  const bySn = new Map(devices.map((d) => [d.serial_number, d]));
  return items.map((a) => {
    const user = byPin.get(a.pin);
    const device = a.sn === '' ? undefined : bySn.get(a.sn);
    const verify = a.verify === MANUAL_VERIFY ? 0 : a.verify;
    return {
      id: a.id,
      emp: a.user_id,
      emp_code: a.pin,
      first_name: user?.first_name ?? '',
      last_name: user?.last_name ?? '',
      department: user?.department ?? null,
      position: user?.position ?? null,
      punch_time: a.local_time,
      punch_state: String(a.status),
      punch_state_display: punchStateDisplay(a.status),
      verify_type: verify,
      verify_type_display: verifyTypeDisplay(verify),
      work_code: a.work_code ?? '',
      gps_location: '',
      area_alias: device?.area_id != null ? (areas.get(device.area_id) ?? null) : null,
      terminal_sn: a.sn,
      terminal: device?.id ?? null,
      temperature: 0,
      is_mask: '-',
      terminal_alias: device?.name ?? null,
      upload_time: localTime(a.created_at, tz),
    };
  });
}
