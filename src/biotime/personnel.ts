/**
 * `/biotime/personnel/api/employees/`: BioTime's employees are the location's users, by id; `emp_code` is
 * the PIN. A write is a user write through the users service (src/users/service.ts), so it is validated,
 * audited and synced to the terminals like any other. BioGate keeps what terminals and rosters need; the
 * HR fields BioTime also has (hire date, gender, contacts …) are accepted and not kept (null when read).
 */
import type { Caller } from '../auth/authenticate.js';
import type { HttpRequest } from '../http/types.js';
import type { OrgKind, User, UserFilter } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { UsersDeps } from '../users/effects.js';
import { deleteUser, upsertUser } from '../users/service.js';
import { PIN_MAX } from '../users/schemas.js';
import { readBody, text } from './body.js';
import { localTime } from './format.js';
import { orgView } from './org.js';
import { envelope, pageOf, positiveInt } from './paging.js';
import { idOf, PREFIX, type BiotimeRoute } from './route.js';
import { fieldError, notFound } from './shapes.js';

/** BioGate's user fields as an employee body names them (validation issues are reported under these). */
const FIELDS = { pin: 'emp_code', areas: 'area', password: 'device_password', department: 'department', position: 'position' };
const NAME_MAX = 100;

export function employeeRoutes(deps: { users: UsersDeps; secure: boolean }): BiotimeRoute[] {
  const { store } = deps.users;
  const path = `${PREFIX}/personnel/api/employees/`;
  const byId = async (req: HttpRequest, caller: Caller): Promise<User> => {
    const id = idOf(req);
    const user = id === undefined ? undefined : await store.users.getById(caller.location.id, id);
    if (!user) throw notFound();
    return user;
  };
  const write = async (req: HttpRequest, caller: Caller, existing: User | undefined, status: number) => {
    const raw = await userBody(store, caller, readBody(req), existing);
    const { user } = await upsertUser(deps.users, caller.location, raw);
    return { status, body: await employee(store, caller, user) };
  };
  return [
    {
      method: 'GET',
      path,
      handler: async (req, caller) => {
        const p = pageOf(req);
        const filter = await filterOf(store, req, caller);
        if (!filter) return { status: 200, body: envelope(req, deps.secure, p, 0, []) };
        const page = await store.users.list(caller.location.id, filter, p.window);
        return { status: 200, body: envelope(req, deps.secure, p, page.total, await employees(store, caller, page.items)) };
      },
    },
    {
      method: 'GET',
      path: `${path}:id/`,
      handler: async (req, caller) => ({ status: 200, body: await employee(store, caller, await byId(req, caller)) }),
    },
    { method: 'POST', path, fields: FIELDS, handler: (req, caller) => write(req, caller, undefined, 201) },
    {
      method: 'PUT',
      path: `${path}:id/`,
      fields: FIELDS,
      handler: async (req, caller) => write(req, caller, await byId(req, caller), 200),
    },
    {
      method: 'PATCH',
      path: `${path}:id/`,
      fields: FIELDS,
      handler: async (req, caller) => write(req, caller, await byId(req, caller), 200),
    },
    {
      method: 'DELETE',
      path: `${path}:id/`,
      handler: async (req, caller) => {
        await deleteUser(deps.users, caller.location, (await byId(req, caller)).pin);
        return { status: 204 };
      },
    },
  ];
}

/** The users filter of the list's query; undefined when it can match nothing (an unknown department). */
async function filterOf(store: Store, req: HttpRequest, caller: Caller): Promise<UserFilter | undefined> {
  const q = req.query;
  const code = q.get('emp_code');
  if (code && !/^\d{1,8}$/.test(code)) return undefined;
  const departmentId = positiveInt(req, 'department');
  const department = departmentId === undefined ? undefined : await store.orgNames.get(caller.location.id, 'department', departmentId);
  if (departmentId !== undefined && !department) return undefined;
  const area = positiveInt(req, 'areas');
  const first = q.get('first_name');
  const last = q.get('last_name');
  return {
    ...(code ? { pins: [Number(code)] } : {}),
    ...(department ? { department: department.name } : {}),
    ...(area !== undefined ? { area } : {}),
    ...(first ? { first_name: first.slice(0, NAME_MAX) } : {}),
    ...(last ? { last_name: last.slice(0, NAME_MAX) } : {}),
  };
}

/** An employee body as the raw user write of upsertUser (which validates it); `existing` for PUT and PATCH. */
async function userBody(
  store: Store,
  caller: Caller,
  body: Record<string, unknown>,
  existing: User | undefined,
): Promise<Record<string, unknown>> {
  const code = body['emp_code'];
  const codeText = typeof code === 'number' || typeof code === 'string' ? String(code).trim() : undefined;
  if (existing === undefined || (code !== undefined && code !== null)) {
    if (codeText === undefined || codeText === '') throw fieldError('emp_code', 'This field is required.');
    if (!/^\d{1,8}$/.test(codeText) || Number(codeText) < 1 || Number(codeText) > PIN_MAX)
      throw fieldError('emp_code', `Enter a whole number from 1 to ${PIN_MAX} (the PIN terminals know).`);
    if (existing && Number(codeText) !== existing.pin) throw fieldError('emp_code', 'The emp_code of an employee cannot change.');
    if (!existing && (await store.users.get(caller.location.id, Number(codeText))))
      throw fieldError('emp_code', 'employee with this emp_code already exists.');
  }
  const pin = existing?.pin ?? Number(codeText);
  const raw: Record<string, unknown> = { pin };
  const first = text(body, 'first_name', NAME_MAX, false);
  // A terminal shows a name: a new employee without one is shown by its code.
  if (first !== undefined || !existing) raw['first_name'] = first ?? String(pin);
  const last = text(body, 'last_name', NAME_MAX, false);
  if (last !== undefined) raw['last_name'] = last;
  const card = text(body, 'card_no', 32, false);
  if (card !== undefined) raw['card_no'] = card;
  const password = text(body, 'device_password', 8, false);
  if (password !== undefined) {
    if (!/^\d{1,8}$/.test(password)) throw fieldError('device_password', 'Enter up to 8 digits.');
    raw['password'] = Number(password);
  }
  if (body['area'] !== undefined && body['area'] !== null) raw['areas'] = idList(body['area']);
  for (const kind of ['department', 'position'] as const) {
    if (!(kind in body)) continue;
    raw[kind] = await orgName(store, caller, kind, body[kind]);
  }
  return raw;
}

/** `area`: a list of area ids (or one id, as some clients send). */
function idList(value: unknown): number[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 1000) throw fieldError('area', 'Ensure this field has no more than 1000 elements.');
  return list.map((v) => {
    const n = typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)
      throw fieldError('area', `Incorrect type. Expected pk value, received ${typeof v}.`);
    return n;
  });
}

/** A department or position named by id (or by an object with its id) → its stored name; null clears. */
async function orgName(store: Store, caller: Caller, kind: OrgKind, value: unknown): Promise<string | null> {
  if (value === null || value === '') return null;
  const raw = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)['id'] : value;
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw fieldError(kind, `Incorrect type. Expected pk value, received ${typeof raw}.`);
  const found = await store.orgNames.get(caller.location.id, kind, id);
  if (!found) throw fieldError(kind, `Invalid pk "${id}" - object does not exist.`);
  return found.name;
}

const employee = async (store: Store, caller: Caller, user: User): Promise<object> => (await employees(store, caller, [user]))[0] as object;

/** The employees of some users: their departments, positions and areas read once for the page. */
async function employees(store: Store, caller: Caller, users: readonly User[]) {
  const locationId = caller.location.id;
  const tz = caller.location.timezone;
  const named = async (kind: OrgKind) => {
    const names = [...new Set(users.map((u) => u[kind]).filter((n): n is string => typeof n === 'string'))];
    const rows = await Promise.all(names.map((name) => store.orgNames.list(locationId, kind, { name }, { offset: 0, limit: 1 })));
    return new Map(rows.flatMap((r) => r.items).map((o) => [o.name, orgView(o)]));
  };
  const [departments, positions, areas] = await Promise.all([named('department'), named('position'), store.areas.names(locationId)]);
  return users.map((u) => ({
    id: u.id,
    emp_code: String(u.pin),
    first_name: u.first_name,
    last_name: u.last_name,
    nickname: null,
    device_password: null,
    card_no: u.card_no,
    department: u.department === null ? null : (departments.get(u.department) ?? null),
    position: u.position === null ? null : (positions.get(u.position) ?? null),
    hire_date: null,
    gender: null,
    birthday: null,
    verify_mode: 0,
    emp_type: null,
    contact_tel: null,
    office_tel: null,
    mobile: null,
    national: null,
    city: null,
    address: null,
    postcode: null,
    email: null,
    enroll_sn: '',
    ssn: null,
    religion: null,
    enable_att: u.is_active,
    enable_overtime: false,
    enable_holiday: true,
    dev_privilege: u.privilege,
    area: u.areas.map((id) => ({ id, area_code: String(id), area_name: areas.get(id) ?? '' })),
    app_status: 0,
    app_role: 1,
    update_time: localTime(u.updated_at ?? u.created_at, tz),
  }));
}
