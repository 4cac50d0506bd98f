/**
 * Schema-driven check of GET /api/openapi.json against the server (issue #32 item 19): for every
 * operation, requests are built from the document alone, valid ones (every enum value, each union
 * member, required-only and fully filled objects, bounds) and invalid ones (each constraint broken
 * once: type, enum, pattern, format, bounds, a required field left out), and sent to a real gateway.
 * What must hold: no 5xx; a valid request is never refused as invalid (422); an invalid one is refused
 * (4xx). Where the document says that a rule depends on stored state (an upsert's fields for a new
 * record, per-item import errors), the check follows the document.
 */
import t from 'tap';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { accessRecords, attendanceRecord, client, gateway, SLOT, type CommandResponse, type Json, type UserResponse } from './client.js';

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  /** Alternatives of required properties: exactly one of them is given (`{required}` members only). */
  oneOf?: { required?: string[] }[];
  anyOf?: Schema[];
  items?: Schema;
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  examples?: unknown[];
  additionalProperties?: boolean | Schema;
}

interface Operation {
  security: Record<string, string[]>[];
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Schema }[];
  requestBody?: { required: boolean; content: { 'application/json'?: { schema: Schema }; 'image/jpeg'?: { schema: Schema } } };
  responses: Record<string, unknown>;
}

interface Preset {
  id: string;
  has_params: boolean;
  params: Schema;
}

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
  'x-presets': Preset[];
}

/** Strings tried against a pattern, in order: the first match is the typical value, a non-match an invalid one. */
const CANDIDATES = [
  'walk',
  'WALK1',
  '1001',
  '2026-03-01',
  '2026-03-01T08:00:00Z',
  '2026-03-01T08:00:00.250+01:00',
  'https://example.com/hook',
  'https://example.com/firmware.bin',
  '0123456789abcdef0123456789abcdef',
  '192.0.2.0/24',
  '2001:db8::/32',
  '10.1.2.3',
  'DATA QUERY USERINFO',
  'Test Name',
  'bg_0123456789abcdef',
  '0',
  'a',
];
/** Dates and times no `format: date` / `date-time` admits, whatever the pattern says. */
const NOT_DATES = ['2026-02-30', '2026-03-01T24:00:00Z', '2026-03-01T23:59:60Z'];
/** Strings no pattern of the document should admit where it restricts: control bytes, a date that does not exist, a bad CIDR. */
const STRAYS = [
  '\u0001',
  'x y\nz',
  '2026-02-30',
  '2026-03-01T24:00:00Z',
  '2026-03-01T23:59:60Z',
  '10.0.0.0/33',
  '300.1.1.1',
  'C:1:INFO',
  ' ',
];

let doc: Doc;

function deref(s: Schema): Schema {
  if (!s.$ref) return s;
  return deref(doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] ?? {});
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);
const fits = (s: Schema, v: string): boolean =>
  (s.pattern === undefined || new RegExp(s.pattern, 'u').test(v)) &&
  v.length >= (s.minLength ?? 0) &&
  v.length <= (s.maxLength ?? Infinity) &&
  (s.format !== 'date' || /^\d{4}-\d{2}-\d{2}$/.test(v)) &&
  (s.format !== 'date-time' || /T/.test(v));

/** A few valid values of `schema`, the typical one first. `known` (by property name) wins, for a scalar: real records. */
function valids(s0: Schema, name: string, known: Readonly<Record<string, unknown>>): unknown[] {
  const s = deref(s0);
  if (name in known && s.type !== 'array') return [known[name]];
  if ('const' in s) return [s.const];
  if (s.examples) return s.examples; // valid by definition (JSON Schema §9.5)
  if (s.enum) return [...s.enum.filter((v) => v !== null), ...s.enum.filter((v) => v === null)];
  if (s.anyOf) return s.anyOf.flatMap((m) => valids(m, name, known).slice(0, 6));
  const out: unknown[] = [];
  for (const type of typesOf(s)) {
    switch (type) {
      case 'string': {
        if (s.format === 'date') out.push('2026-03-01', '2024-02-29');
        else if (s.format === 'date-time') out.push('2026-03-01T08:00:00Z', '2026-03-01T09:30:00.5+01:00');
        else {
          // Strays the schema admits are valid too: a fuzzer would send them (an impossible date a loose pattern lets through).
          const hits = [...CANDIDATES.filter((c) => fits(s, c)), ...STRAYS.filter((c) => s.pattern !== undefined && fits(s, c))];
          if (hits.length === 0 && s.pattern === undefined) hits.push('w'.repeat(Math.max(1, s.minLength ?? 1)));
          if (hits.length === 0) throw new Error(`${name}: no candidate string fits /${s.pattern ?? ''}/`);
          out.push(...hits.slice(0, 2), ...hits.slice(2).filter((h) => STRAYS.includes(h)));
        }
        break;
      }
      case 'integer':
      case 'number':
        out.push(s.default ?? s.minimum ?? 1);
        if (s.maximum !== undefined && s.maximum !== s.minimum) out.push(s.maximum);
        break;
      case 'boolean':
        out.push(true, false);
        break;
      case 'null':
        out.push(null);
        break;
      case 'array': {
        const item = s.items ? valids(s.items, `${name}[]`, known)[0] : 'walk';
        const min = s.minItems ?? 0;
        out.push(Array.from({ length: Math.max(1, min) }, () => item));
        if (min === 0) out.push([]);
        break;
      }
      case 'object': {
        const props = s.properties ?? {};
        const first = (p: string) => valids(props[p] ?? {}, p, known)[0];
        // Each alternative of `oneOf` (exactly one given): the others' properties are left out.
        const alternatives = s.oneOf?.map((m) => m.required ?? []) ?? [[]];
        for (const [i, chosen] of alternatives.entries()) {
          const excluded = new Set(alternatives.flatMap((a, j) => (j === i ? [] : a)));
          const names = Object.keys(props).filter((p) => !excluded.has(p));
          const required = [...(s.required ?? []), ...chosen];
          const base = Object.fromEntries(required.map((p) => [p, first(p)]));
          out.push(base);
          if (names.length > required.length) out.push(Object.fromEntries(names.map((p) => [p, first(p)])));
          // Each property through its other values, one at a time.
          for (const p of names) for (const v of valids(props[p] ?? {}, p, known).slice(1, 6)) out.push({ ...base, [p]: v });
        }
        break;
      }
    }
  }
  return out.length > 0 ? out : ['walk'];
}

interface Broken {
  readonly why: string;
  readonly value: unknown;
}

/** Values that break one rule of `schema` each. `inQuery`: only what a query string can carry (text). */
function invalids(s0: Schema, name: string, known: Readonly<Record<string, unknown>>, inQuery: boolean): Broken[] {
  const s = deref(s0);
  const types = typesOf(s);
  const out: Broken[] = [];
  if (s.anyOf) {
    const members = s.anyOf.map(deref);
    // What no member admits: a type none of them has, and strays none of them fits.
    if (!inQuery && !members.some((m) => typesOf(m).includes('object'))) out.push({ why: 'an object', value: { x: 1 } });
    const strings = members.filter((m) => typesOf(m).includes('string'));
    if (strings.length === members.length)
      for (const v of STRAYS)
        if (!strings.some((m) => (m.enum ? m.enum.includes(v) : fits(m, v) && m.format === undefined)))
          out.push({ why: `stray ${JSON.stringify(v)}`, value: v });
    return out;
  }
  if (s.enum) {
    out.push({ why: 'not in the enum', value: 'zz-not-listed' });
    return out;
  }
  if (!inQuery && !types.includes('string') && !types.includes('object')) out.push({ why: 'a string', value: 'walk' });
  if (!inQuery && types.includes('string') && !types.includes('integer') && !types.includes('number'))
    out.push({ why: 'a number', value: 12345 });
  if (types.includes('integer') || types.includes('number')) {
    if (inQuery) out.push({ why: 'not a number', value: 'x1' });
    if (s.minimum !== undefined) out.push({ why: 'below the minimum', value: s.minimum - 1 });
    if (s.maximum !== undefined) out.push({ why: 'above the maximum', value: s.maximum + 1 });
    if (types.includes('integer') && !types.includes('number')) out.push({ why: 'a fraction', value: 1.5 });
  }
  if (types.includes('string')) {
    if ((s.minLength ?? 0) > 0) out.push({ why: 'empty', value: '' });
    if (s.maxLength !== undefined && s.maxLength < 5000) out.push({ why: 'too long', value: 'w'.repeat(s.maxLength + 1) });
    if (s.pattern !== undefined || s.format === 'date' || s.format === 'date-time') {
      for (const v of [...STRAYS, ...CANDIDATES]) {
        const admitted = fits(s, v) && !(s.format !== undefined && NOT_DATES.includes(v));
        if (!admitted && v.length <= (s.maxLength ?? Infinity) && v.length >= (s.minLength ?? 0))
          out.push({ why: `off-pattern ${JSON.stringify(v)}`, value: v });
      }
    }
  }
  if (types.includes('boolean') && inQuery) out.push({ why: 'not a boolean', value: 'maybe' });
  if (types.includes('array') && !inQuery) {
    if ((s.minItems ?? 0) > 0) out.push({ why: 'no items', value: [] });
    if (s.items)
      for (const b of invalids(s.items, `${name}[]`, known, false).slice(0, 3)) out.push({ why: `an item ${b.why}`, value: [b.value] });
  }
  if (types.includes('object') && !inQuery) {
    const base = valids(s, name, known)[0] as Json;
    for (const r of [...(s.required ?? []), ...(s.oneOf?.[0]?.required ?? [])]) {
      const { [r]: _dropped, ...rest } = base;
      out.push({ why: `without ${r}`, value: rest });
    }
    const others = new Set((s.oneOf ?? []).slice(1).flatMap((m) => m.required ?? []));
    for (const [p, ps] of Object.entries(s.properties ?? {})) {
      if (p in known || others.has(p)) continue;
      for (const b of invalids(ps, p, known, false)) out.push({ why: `${p}: ${b.why}`, value: { ...base, [p]: b.value } });
    }
  }
  return out;
}

t.test('every operation of the document: valid requests pass validation, invalid ones are refused, never a 5xx', async (t) => {
  const { a, url, started } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  // Generous timeouts: the MongoDB-compatible test server is slow under CI load.
  const slow = { timeoutMs: 30_000 };
  const access = await accessRecords(a.api, slow);
  await a.api('POST', '/api/devices', { body: { sn: 'WALK1' }, ...slow });
  const user = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 1001, first_name: 'Walk' }, ...slow });
  const command = await a.api<CommandResponse>('POST', '/api/commands', { body: { sn: 'WALK1', command: 'reboot' }, ...slow });
  const hook = await a.api<{ id: number }>('POST', '/api/webhooks', {
    body: { url: 'https://example.com/hook', events: ['user.changed'] },
    ...slow,
  });
  const created = await client(url, ADMIN_TOKEN)<{ location: { id: number } }>('POST', '/admin/locations', {
    body: { name: 'Fuzzed', timezone: 'UTC' },
    ...slow,
  });
  const other = { status: created.status, id: created.body.location.id };
  const spare = await started.app.locations.issueToken({ location_id: other.id, label: 'to revoke' });
  const attendance = await attendanceRecord(a.api, slow);
  t.equal(user.status, 201);
  t.equal(command.status, 201);
  t.equal(hook.status, 201);
  t.equal(other.status, 201);
  doc = (await a.api<Doc>('GET', '/api/openapi.json', slow)).body as Doc;

  const known: Record<string, unknown> = {
    pin: 1001,
    device_serial: 'WALK1',
    sn: 'WALK1',
    command_id: command.body.id,
    webhook_id: hook.body.id,
    url: 'https://example.com/hook',
    after: '0',
    ...access,
    ...attendance,
  };
  const call = client(url, a.token);
  const rank = (o: { method: string; path: string }) =>
    o.method !== 'DELETE' && !o.path.startsWith('/admin/locations/{id}')
      ? 0
      : o.path.startsWith('/api/commands') || o.path.includes('/templates/')
        ? 1
        : 2;
  const ops = Object.entries(doc.paths)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })))
    .sort((x, y) => rank(x) - rank(y));

  const refusedAsInvalid: string[] = [];
  const acceptedInvalid: string[] = [];
  const serverErrors: string[] = [];
  let sent = 0;
  for (const { path, method, op } of ops) {
    const admin = op.security.some((s) => 'AdminToken' in s);
    const idFor = (name: string) =>
      name === 'id'
        ? path.startsWith('/admin/tokens')
          ? spare.id
          : other.id
        : path.includes('/templates/') && name in SLOT
          ? SLOT[name]
          : valids(op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema ?? {}, name, known)[0];
    const fill = (params: Record<string, unknown>) =>
      path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(String(n in params ? params[n] : idFor(n))));
    const send = async (label: string, pathParams: Record<string, unknown>, query: Record<string, unknown>, body: unknown) => {
      const q = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
      const target = `${fill(pathParams)}${q ? `?${q}` : ''}`;
      const res = await call<Json>(method, target, {
        ...(body !== undefined ? { body } : {}),
        ...(admin ? { token: ADMIN_TOKEN } : {}),
        timeoutMs: 30_000,
      });
      sent++;
      const what = `${method} ${target} ${body === undefined ? '' : JSON.stringify(body).slice(0, 160)} (${label}) → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      if (res.status >= 500) serverErrors.push(what);
      return { res, what };
    };
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const bodySchema = op.requestBody?.content['application/json']?.schema;
    const isCommand = bodySchema !== undefined && 'command' in (deref(bodySchema).properties ?? {});
    const isImport = path === '/api/users/import';

    // Valid: bare, each query parameter through its values, and each body variant.
    const validBodies: unknown[] = [];
    if (bodySchema && isCommand) {
      const base = valids(bodySchema, 'body', known)[0] as Json;
      for (const preset of doc['x-presets']) {
        const params = preset.has_params ? valids(preset.params, 'params', known)[0] : undefined;
        validBodies.push({ ...base, command: preset.id, ...(params !== undefined ? { params } : {}) });
      }
      validBodies.push({ ...base, command: 'DATA QUERY USERINFO PIN=1001' });
    } else if (bodySchema) validBodies.push(...valids(bodySchema, 'body', known));
    const queries: Record<string, unknown>[] = [{}];
    for (const p of queryParams) for (const v of valids(p.schema, p.name, known)) queries.push({ [p.name]: v });
    for (const query of queries) {
      for (const body of validBodies.length > 0 ? validBodies : [undefined]) {
        const { res, what } = await send('valid', {}, query, body);
        if (res.status !== 422) continue;
        // [documented] POST /api/users is an upsert: a new PIN needs first_name (the document's description says so).
        const detail = JSON.stringify(res.body);
        if (path === '/api/users' && method === 'POST' && detail.includes('required for a new user')) continue;
        // [documented] a webhook's template and format options go with their format (the fields' descriptions say which).
        if (path.startsWith('/api/webhooks') && /goes with the|is required by the/.test(detail)) continue;
        if ((res.body as { code?: string }).code === 'COMMAND_NOT_SUPPORTED') continue;
        refusedAsInvalid.push(what);
      }
    }

    // Invalid: one rule broken at a time.
    const refused = (status: number, body: Json): boolean =>
      (status >= 400 && status < 500) || (isImport && status === 200 && Number(body['error_count']) > 0);
    for (const p of pathParams) {
      if (p.name === 'id' && admin) continue; // ids of the admin API: any integer is a lookup (404), covered by the bounds below
      // An empty segment is another path (`/api/devices/` is the list), not an invalid parameter.
      for (const b of invalids(p.schema, p.name, {}, true).filter((x) => x.value !== '')) {
        const { res, what } = await send(`path ${p.name} ${b.why}`, { [p.name]: b.value }, {}, validBodies[0]);
        if (!refused(res.status, res.body)) acceptedInvalid.push(what);
      }
    }
    for (const p of queryParams) {
      for (const b of invalids(p.schema, p.name, {}, true)) {
        const { res, what } = await send(`query ${p.name} ${b.why}`, {}, { [p.name]: b.value }, validBodies[0]);
        if (!refused(res.status, res.body)) acceptedInvalid.push(what);
      }
    }
    if (bodySchema) {
      const knownBody = isCommand ? { ...known, command: 'reboot' } : known;
      const broken = isImport
        ? invalids(deref(bodySchema).items ?? {}, 'item', known, false).map((b) => ({ why: `an item ${b.why}`, value: [b.value] }))
        : invalids(bodySchema, 'body', knownBody, false);
      if (op.requestBody?.required) broken.push({ why: 'a JSON array instead of the body', value: isImport ? {} : [] });
      for (const b of broken) {
        const { res, what } = await send(`body ${b.why}`, {}, {}, b.value);
        if (!refused(res.status, res.body)) acceptedInvalid.push(what);
      }
    }
  }
  t.strictSame(serverErrors, [], 'no 5xx');
  t.strictSame(refusedAsInvalid, [], 'no request valid by the document is refused with 422');
  t.strictSame(acceptedInvalid, [], 'every request the document rules out is refused');
  t.ok(sent > 300, `${sent} requests over ${ops.length} operations`);
});
