/**
 * A small JSON client for the REST API tests: plain fetch against the real app
 * (test/helpers/app.ts starts it on port 0 with a temporary SQLite store), plus
 * the response shapes of SERVICE-SPEC "Resources and their fields" and a few
 * assertions that several test files share.
 */
import { startApp, type StartOptions, type StartedApp, type Teardown } from '../helpers/app.js';

export type Json = Record<string, unknown>;

export interface Reply<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

export interface CallOptions {
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Sent as is (malformed JSON, NUL bytes, …); wins over `body`. */
  readonly raw?: string | Uint8Array;
  /** Another token than the client's; `null` sends no Authorization header. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
  /** How long the call may take (default 10 s): a 10,000-user import on the Java test MongoDB takes longer under CI load. */
  readonly timeoutMs?: number;
}

export type Call = <T = Json>(method: string, path: string, options?: CallOptions) => Promise<Reply<T>>;

/** A caller bound to one base URL and one bearer token. */
export function client(url: string, token: string): Call {
  return async <T = Json>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const bearerToken = options.token === undefined ? token : options.token;
    if (bearerToken !== null) headers['authorization'] = `Bearer ${bearerToken}`;
    let body: string | Uint8Array | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed: unknown = type.includes('application/json') && text.length > 0 ? JSON.parse(text) : text;
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}

export interface Tenant {
  readonly id: number;
  readonly name: string;
  readonly token: string;
  readonly api: Call;
}

export interface Gateway {
  readonly started: StartedApp;
  /** The bootstrap location "Default". */
  readonly a: Tenant;
  /** Calls the API without binding a tenant (pass `token`). */
  readonly url: string;
  /** Creates another location with its first token. */
  tenant(name: string): Promise<Tenant>;
}

/** The real app on port 0 with the bootstrap location as tenant A. */
export async function gateway(t: Teardown, options: StartOptions = {}): Promise<Gateway> {
  const started = await startApp(t, options);
  const { url, token, locationId } = started;
  return {
    started,
    url,
    a: { id: locationId, name: 'Default', token, api: client(url, token) },
    async tenant(name) {
      const created = await started.app.locations.create({ name });
      return { id: created.location.id, name, token: created.token.token, api: client(url, created.token.token) };
    },
  };
}

// ------------------------------------------------------------------ response shapes

export interface LocationBasic {
  id: number;
  name: string;
}

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface ErrorBody {
  detail: string | Issue[];
  code: string;
}

export interface ValidationError {
  detail: Issue[];
  code: 'VALIDATION_FAILED';
}

export interface UserResponse {
  id: number;
  location_id: number;
  location: LocationBasic | null;
  pin: number;
  first_name: string | null;
  last_name: string | null;
  card_no: string | null;
  password: number | null;
  is_active: boolean;
  start_time: string | null;
  end_time: string | null;
  privilege: number;
  group: number;
  super_authorize: number;
  has_biometric: boolean;
  biometric_templates: Json[] | null;
  created_at: string;
  updated_at: string | null;
  department: string | null;
  position: string | null;
}

export interface DeviceResponse {
  id: number;
  name: string;
  serial_number: string;
  location_id: number | null;
  location: LocationBasic | null;
  registry_code: string | null;
  session_id: string | null;
  registered_at: string | null;
  options: Record<string, string> | null;
  version: string | null;
  last_seen: string | null;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  /** BioGate extension: the dialect pinned at assignment. */
  version_override: string | null;
}

export interface CommandResponse {
  id: number;
  command: string;
  priority: number;
  location_id: number | null;
  location: LocationBasic | null;
  sn: string | null;
  status: 'pending' | 'sent' | 'success' | 'failed';
  response: string | null;
  error_message: string | null;
  sent_at: string | null;
  acknowledged_at: string | null;
  is_active: boolean;
  created_at: string;
  updated_at: string | null;
  params: Json | null;
  result: unknown;
  expires_at: string | null;
  created_by_token_id: number | null;
}

export const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const USER_KEYS = [
  'id',
  'location_id',
  'location',
  'pin',
  'first_name',
  'last_name',
  'card_no',
  'password',
  'is_active',
  'start_time',
  'end_time',
  'privilege',
  'group',
  'super_authorize',
  'areas',
  'access_levels',
  'photo',
  'has_biometric',
  'biometric_templates',
  'created_at',
  'updated_at',
  'department',
  'position',
] as const;

/** SERVICE-SPEC DeviceResponse, plus the documented extras `version_override`, `auth` and `allowed_networks` (README "Security model"), `sync` (issue #31) and `area` (issue #33). */
export const DEVICE_KEYS = [
  'id',
  'name',
  'serial_number',
  'location_id',
  'location',
  'registry_code',
  'session_id',
  'registered_at',
  'options',
  'version',
  'last_seen',
  'is_active',
  'created_at',
  'updated_at',
  'version_override',
  'auth',
  'allowed_networks',
  'registration',
  'area',
  'access_control',
  'sync',
] as const;

/** SERVICE-SPEC CommandResponse, plus the extras of API-CONTRACT §4–5. */
export const COMMAND_KEYS = [
  'id',
  'command',
  'priority',
  'location_id',
  'location',
  'sn',
  'status',
  'response',
  'error_message',
  'sent_at',
  'acknowledged_at',
  'is_active',
  'created_at',
  'updated_at',
  'params',
  'result',
  'expires_at',
  'created_by_token_id',
] as const;

export const PAGE_KEYS = ['data', 'total', 'page', 'limit', 'total_pages', 'has_next', 'has_prev'] as const;

/** Own keys, sorted: compare field sets exactly. */
export const keysOf = (value: unknown): string[] => (value !== null && typeof value === 'object' ? Object.keys(value).sort() : []);
export const sorted = (keys: readonly string[]): string[] => [...keys].sort();

/** The `loc`s of a 422, as `body.pin`-style strings, sorted. */
export function locsOf(body: unknown): string[] {
  const detail = (body as { detail?: unknown }).detail;
  if (!Array.isArray(detail)) return [];
  return (detail as Issue[]).map((i) => i.loc.join('.')).sort();
}

/** The issue at `loc` (`body.pin`), if any. */
export function issueAt(body: unknown, loc: string): Issue | undefined {
  const detail = (body as { detail?: unknown }).detail;
  return Array.isArray(detail) ? (detail as Issue[]).find((i) => i.loc.join('.') === loc) : undefined;
}

/** Every issue is a `{loc, msg, type}` triple with a non-empty msg and a loc under `root`. */
export function wellFormedIssues(body: unknown, root: 'body' | 'query' | 'path'): boolean {
  const b = body as { detail?: unknown; code?: unknown };
  if (b.code !== 'VALIDATION_FAILED' || !Array.isArray(b.detail) || b.detail.length === 0) return false;
  return (b.detail as unknown[]).every((raw) => {
    const i = raw as Partial<Issue>;
    return (
      keysOf(i).join() === 'loc,msg,type' &&
      Array.isArray(i.loc) &&
      i.loc[0] === root &&
      typeof i.msg === 'string' &&
      i.msg.length > 0 &&
      typeof i.type === 'string'
    );
  });
}

/** A small deterministic PRNG (mulberry32) for bounded fuzzing. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The access records of issue #33 (an area, a schedule, a holiday, a level) created through the API for a walk
 * over the OpenAPI document, and the values its samples take for their ids and the fields with rules the schema
 * cannot state (a level's doors, an interval's start before its end). Throws when one is refused.
 */
export async function accessRecords(api: Call, options: Pick<CallOptions, 'timeoutMs'> = {}): Promise<Json> {
  const created = async (path: string, body: unknown) => {
    const r = await api<{ id: number }>('POST', path, { body, ...options });
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.id;
  };
  const area = await created('/api/areas', { name: 'Walk area' });
  const schedule = await created('/api/schedules', { name: 'Walk hours', days: { mon: [{ start: '08:00', end: '17:00' }] } });
  const holiday = await created('/api/holidays', {
    name: 'Walk day',
    start_date: '2026-12-25',
    end_date: '2026-12-26',
    type: 1,
    recurring: true,
  });
  const level = await created('/api/access-levels', { name: 'Walk level', schedule_id: schedule, doors: [1], area_id: null });
  return {
    area_id: area,
    areas: [area],
    schedule_id: schedule,
    normal_open_schedule_id: schedule,
    access_level_id: level,
    holiday_id: holiday,
    access_levels: [level],
    doors: [1, 3],
    door: 1,
    start: '08:30',
    end: '17:30',
  };
}

/**
 * A manual punch of PIN 1001 (the walks' user, created before), for the walks over the OpenAPI document: the value
 * their samples take for `attendance_id` (POST /api/attendance/{attendance_id}/void).
 */
export async function attendanceRecord(api: Call, options: Pick<CallOptions, 'timeoutMs'> = {}): Promise<Json> {
  const body = { pin: 1001, timestamp: '2026-03-01T07:00:00Z', reason: 'walk record' };
  const r = await api<{ id: number }>('POST', '/api/attendance', { body, ...options });
  if (r.status !== 201) throw new Error(`POST /api/attendance: ${r.status} ${JSON.stringify(r.body)}`);
  return { attendance_id: r.body.id };
}

/** The template slot the walks over the OpenAPI document use for `{type}` and `{index}` (a fingerprint, finger 0). */
export const SLOT: Json = { type: 1, index: 0 };

/** Every command of the location has finished (nothing pending or sent). */
export async function settled(api: Call, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const open = await Promise.all(
      ['pending', 'sent'].map(async (s) => (await api<{ total: number }>('GET', `/api/commands?status=${s}&limit=1`)).body.total),
    );
    if (open.every((n) => n === 0)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${open.join(' pending, ')} sent`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
