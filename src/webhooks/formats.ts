/**
 * The body of a delivery in its subscription's `format` (issue #36 item 5). Every format is JSON, signed with the
 * same Standard Webhooks headers; the body is made once, when the delivery is stored, and sent byte for byte.
 *
 * - `standard`: the envelope `{id, type, location_id, created_at, data}` (payload.ts).
 * - `template`: the subscription's JSON template with `{{path}}` placeholders over that envelope
 *   (`{{data.records.0.pin}}`). A string that is exactly one placeholder becomes the value itself (a number
 *   stays a number, a missing path is null); placeholders inside a longer string are replaced by the value's
 *   text (objects as JSON, a missing path as nothing). Keys are never rendered. The result is always valid JSON:
 *   no value can break out of its string.
 * - `erpnext_checkin`: one punch as ERPNext/HRMS's `add_log_based_on_employee_field` takes it (the PIN matched
 *   against the Employee's Attendance Device ID, the terminal's local time, `log_type` IN/OUT from the state key).
 * - `odoo_attendance`: one punch as Odoo's attendance kiosk takes a badge scan (JSON-RPC
 *   `/hr_attendance/attendance_barcode_scanned`: the PIN as the employee's badge ID, the kiosk `token`).
 * - `slack` / `telegram`: one line of text per event (`{"text"}` / `{"chat_id", "text"}`).
 *
 * The punch presets send `attendance.recorded` only, one delivery per punch; other events make no delivery.
 */
import type { WebhookShape } from '../store/ports/index.js';

export interface Envelope {
  readonly id: string;
  readonly type: string;
  readonly location_id: number;
  readonly created_at: string;
  readonly data: unknown;
}

/** Formats that send one punch per delivery and nothing else. */
export const PUNCH_FORMATS: ReadonlySet<string> = new Set(['erpnext_checkin', 'odoo_attendance']);
/** Formats whose attendance deliveries carry one record each (attendance_batch does not apply). */
export const ONE_RECORD_FORMATS: ReadonlySet<string> = new Set([...PUNCH_FORMATS, 'slack', 'telegram']);

/** A rendered body above this is not sent (a template repeating a large upload); the lane logs it. */
export const MAX_RENDERED_BYTES = 1_048_576;
/** Placeholders one template may hold (bounds the rendered size with MAX_RENDERED_BYTES). */
export const MAX_PLACEHOLDERS = 64;
/** The roots a placeholder path may start from: the envelope's fields. */
export const TEMPLATE_ROOTS = ['id', 'type', 'location_id', 'created_at', 'data'] as const;

const PART = /\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {});
const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** The value at a dotted path (own properties and array indexes only), undefined when absent. */
function lookup(root: unknown, path: string): unknown {
  let at: unknown = root;
  for (const key of path.split('.')) {
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

function fill(node: unknown, env: Envelope): unknown {
  if (typeof node === 'string') {
    const whole = WHOLE.exec(node);
    if (whole) return lookup(env, whole[1] as string) ?? null;
    return node.replace(PART, (_m, path: string) => text(lookup(env, path)));
  }
  if (Array.isArray(node)) return node.map((n) => fill(n, env));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, fill(v, env)]));
  }
  return node;
}

/** Every placeholder path of a template (for validation: roots and count). */
export function placeholders(node: unknown, out: string[] = []): string[] {
  if (typeof node === 'string') for (const m of node.matchAll(PART)) out.push(m[1] as string);
  else if (Array.isArray(node)) for (const n of node) placeholders(n, out);
  else if (node !== null && typeof node === 'object') for (const v of Object.values(node)) placeholders(v, out);
  return out;
}

/** The one punch of a one-record attendance envelope, or null. */
function punchOf(env: Envelope): Record<string, unknown> | null {
  if (env.type !== 'attendance.recorded') return null;
  const records = rec(env.data)['records'];
  return Array.isArray(records) && records.length === 1 ? rec(records[0]) : null;
}

const IN = new Set(['check-in', 'break-in', 'overtime-in']);
const OUT = new Set(['check-out', 'break-out', 'overtime-out']);

function erpnextCheckin(env: Envelope): unknown {
  const p = punchOf(env);
  if (!p) return null;
  const label = String(p['status_label'] ?? '');
  return {
    employee_field_value: p['pin'],
    timestamp: p['local_time'],
    device_id: p['sn'] ?? 'manual',
    ...(IN.has(label) ? { log_type: 'IN' } : OUT.has(label) ? { log_type: 'OUT' } : {}),
  };
}

function odooAttendance(env: Envelope, token: string | undefined): unknown {
  const p = punchOf(env);
  if (!p) return null;
  return { jsonrpc: '2.0', method: 'call', id: env.id, params: { token: token ?? '', barcode: p['pin'] } };
}

/** One line saying what happened, for chat receivers. */
export function summaryOf(env: Envelope): string {
  const d = rec(env.data);
  const at = (v: unknown) => (typeof v === 'string' && v !== '' ? ` (${v})` : '');
  switch (env.type) {
    case 'attendance.recorded': {
      const p = punchOf(env);
      const records = Array.isArray(d['records']) ? d['records'].length : 0;
      if (!p) return `${records} punches from ${text(d['sn']) || 'a manual entry'}`;
      const how = p['status_label'] ? ` ${text(p['status_label'])}` : '';
      return `PIN ${text(p['pin'])}${how} at ${text(p['local_time'])} on ${p['sn'] === null ? 'a manual entry' : text(p['sn'])}`;
    }
    case 'device.online':
    case 'device.offline':
      return `Terminal ${text(d['sn'])}${at(rec(d['device'])['name'])} is ${env.type === 'device.online' ? 'online' : 'offline'}`;
    case 'door.event':
      return `Door ${text(d['door']) || '?'} on ${text(d['sn'])}: ${text(d['meaning']) || `event ${text(d['event'])}`}${
        d['pin'] ? ` (PIN ${text(d['pin'])})` : ''
      }`;
    case 'command.updated': {
      const c = rec(d['command']);
      return `Command ${text(c['id'])} ${text(c['command'])} on ${text(c['sn']) || 'every terminal'}: ${text(c['status'])}`;
    }
    default:
      return `${env.type} in location ${env.location_id}`;
  }
}

/** The JSON value to send for an envelope in a subscription's format; null: this format sends nothing for it. */
function bodyValue(shape: Pick<WebhookShape, 'format' | 'format_options'>, env: Envelope): unknown {
  switch (shape.format) {
    case 'standard':
      return env;
    case 'template':
      return fill(shape.format_options?.template ?? null, env);
    case 'erpnext_checkin':
      return erpnextCheckin(env);
    case 'odoo_attendance':
      return odooAttendance(env, shape.format_options?.token);
    case 'slack':
      return { text: summaryOf(env) };
    case 'telegram':
      return { chat_id: shape.format_options?.chat_id ?? '', text: summaryOf(env) };
  }
}

/**
 * The body to store and send, or null (this format sends nothing for the event), or 'too large' (a template
 * rendering past MAX_RENDERED_BYTES).
 */
export function render(shape: Pick<WebhookShape, 'format' | 'format_options'>, env: Envelope): string | null | 'too large' {
  const value = bodyValue(shape, env);
  if (value === null) return null;
  const body = JSON.stringify(value);
  return Buffer.byteLength(body) > MAX_RENDERED_BYTES ? 'too large' : body;
}
