/**
 * GET /api/openapi.json [SERVICE-SPEC "Authentication"]: an OpenAPI 3.1 document
 * that matches what the server serves, checked three ways: every mounted route is
 * documented, every documented operation is served, and a scripted walk builds a
 * request for each operation from the document alone (real path values, bodies
 * from the schemas), calls it, and checks the status against the document and the
 * body against the route's response schema.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import t from 'tap';
import type { TSchema } from 'typebox';
import { compiled, issuesFrom } from '../../src/validation/schema.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { accessRecords, attendanceRecord, client, gateway, SLOT, type CommandResponse, type Json, type UserResponse } from './client.js';

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  /** Alternatives of required properties (exactly one of them): the first is used. */
  oneOf?: { required?: string[] }[];
  anyOf?: Schema[];
  items?: Schema;
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  pattern?: string;
  format?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  parameters: Parameter[];
  requestBody?: { required: boolean; content: { 'application/json'?: { schema: Schema }; 'image/jpeg'?: { schema: Schema } } };
  responses: Record<string, unknown>;
}

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Json>; schemas: Record<string, Json> };
}

/** Strings tried, in order, against a schema's pattern. */
const CANDIDATES = ['walk', 'WALK1', '1001', '2026-03-01', '2026-03-01T08:00:00.000Z', 'https://example.com/firmware.bin'];

/** The document's named schemas, for `$ref`s (set when a test reads the document). */
const components: Record<string, Schema> = {};

/** A value for `schema` built from the document: defaults, consts, minimums, pattern-matching strings; `known` wins by name. */
function sample(schema: Schema, name: string, known: Readonly<Record<string, unknown>>): unknown {
  if (name in known) return known[name];
  if (schema.$ref) return sample(components[schema.$ref.replace('#/components/schemas/', '')] ?? {}, name, known);
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum.find((v) => v !== null);
  if (schema.anyOf) return sample(schema.anyOf.find((m) => m.type !== 'null') ?? {}, name, known);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        [...(schema.required ?? []), ...(schema.oneOf?.[0]?.required ?? [])].map((p) => [
          p,
          sample(schema.properties?.[p] ?? {}, p, known),
        ]),
      );
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string': {
      if (schema.pattern) {
        const re = new RegExp(schema.pattern);
        const hit = CANDIDATES.find((c) => re.test(c));
        if (hit === undefined) throw new Error(`no sample string for ${name} /${schema.pattern}/`);
        return hit;
      }
      return schema.format === 'date-time' ? '2026-03-01T08:00:00.000Z' : schema.format === 'date' ? '2026-03-01' : 'walk';
    }
    default:
      return 'walk';
  }
}

const ops = (doc: OpenApiDoc) =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

t.test('the document: OpenAPI 3.1, LocationApiKey bearer scheme, public', async (t) => {
  const { a, url } = await gateway(t);
  const res = await a.api<OpenApiDoc>('GET', '/api/openapi.json', { token: null });
  t.equal(res.status, 200, 'no authentication needed');
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.equal(res.body.openapi, '3.1.0');
  t.match(res.body.components.securitySchemes['LocationApiKey'], { type: 'http', scheme: 'bearer' });
  t.ok(res.body.components.schemas['Error'], 'the error body is a shared schema');

  const all = ops(res.body);
  t.equal(new Set(all.map((o) => o.op.operationId)).size, all.length, 'operationIds are unique');
  for (const { path, method, op } of all) {
    // The document and its human-readable rendering (/api/docs and its script) are public.
    const isPublic = path === '/api/openapi.json' || path === '/api/docs' || path.startsWith('/api/docs/');
    if (path.startsWith('/api/') && !isPublic) t.strictSame(op.security, [{ LocationApiKey: [] }], `${method} ${path}: LocationApiKey`);
    t.ok(op.responses['500'], `${method} ${path}: documents 500`);
    for (const p of op.parameters.filter((x) => x.in === 'path'))
      t.ok(path.includes(`{${p.name}}`), `${method} ${path}: path param ${p.name} is in the path`);
    for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
      t.ok(
        op.parameters.some((p) => p.in === 'path' && p.name === name),
        `${method} ${path}: {${name}} is documented`,
      );
    }
  }
  t.strictSame((await client(url, '')('GET', '/api/openapi.json', { token: null })).body, res.body, 'stable between calls');

  // What a reader of the document (or of the README) can follow: no citation of the team's references that the
  // repository does not hold; the vendor's protocol documents are named by their public titles.
  const outside = /\[(PUSH-v[23]|COMMANDS)[^\]]*\]|API-CONTRACT|SERVICE-SPEC|DESIGN\.md|\bDESIGN\b/g;
  t.same(
    [...JSON.stringify(res.body).matchAll(outside)].map((m) => m[0]),
    [],
    'the OpenAPI document cites nothing outside the repository',
  );
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  t.same(
    [...readme.matchAll(outside)].map((m) => m[0]),
    [],
    'neither does the README',
  );
});

t.test('every mounted route is documented, and every documented operation is served', async (t) => {
  const { a, url, started } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const doc = (await a.api<OpenApiDoc>('GET', '/api/openapi.json')).body;
  Object.assign(components, doc.components.schemas);
  for (const route of started.app.apiRoutes) {
    t.ok(doc.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path} is in the document`);
  }
  const documented = ops(doc);
  t.equal(documented.length, started.app.apiRoutes.length, 'nothing documented that is not mounted');

  const anonymous = client(url, '');
  for (const { path, method, op } of documented) {
    const concrete = path.replace(/\{[^}]+\}/g, '1');
    const res = await anonymous<{ code?: string }>(method, concrete, { token: null });
    t.not(res.status, 405, `${method} ${path}: served (not 405)`);
    t.not(res.body.code, 'NOT_FOUND', `${method} ${path}: served (not a missing route)`);
    const expected = op.security.length === 0 ? 200 : 401;
    t.equal(res.status, expected, `${method} ${path}: ${expected} without a token`);
    t.ok(op.responses[String(res.status)], `${method} ${path}: ${res.status} is documented`);
  }
});

t.test('scripted walk: every operation, built from the document, answers as documented', async (t) => {
  const { a, url, started } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  // Real records for the path parameters.
  const access = await accessRecords(a.api);
  await a.api('POST', '/api/devices', { body: { sn: 'WALK1' } });
  const user = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 1001, first_name: 'Walk' } });
  const command = await a.api<CommandResponse>('POST', '/api/commands', { body: { sn: 'WALK1', command: 'reboot' } });
  const spare = await started.app.locations.issueToken({ location_id: a.id, label: 'to revoke' });
  const hook = await a.api<{ id: number }>('POST', '/api/webhooks', {
    body: { url: 'https://example.com/hook', events: ['user.changed'] },
  });
  t.equal(hook.status, 201);
  t.equal(user.status, 201);
  t.equal(command.status, 201);
  const attendance = await attendanceRecord(a.api);

  const doc = (await a.api<OpenApiDoc>('GET', '/api/openapi.json')).body;
  Object.assign(components, doc.components.schemas);
  // `after: '0'`: the attendance cursor feed from its start (any other string is not a cursor).
  const known = {
    pin: 1001,
    device_serial: 'WALK1',
    sn: 'WALK1',
    command_id: command.body.id,
    command: 'reboot',
    after: '0',
    webhook_id: hook.body.id,
    url: 'https://example.com/hook',
    events: ['user.changed'],
    ...access,
    ...attendance,
  };
  const pathValue = (path: string, name: string): unknown =>
    name === 'id'
      ? path.startsWith('/admin/tokens')
        ? spare.id
        : a.id
      : path.includes('/templates/') && name in SLOT
        ? SLOT[name]
        : sample({}, name, known);
  const schemaOf = new Map(started.app.apiRoutes.map((r) => [`${r.method} ${r.path}`, r.doc.responses]));
  const call = client(url, a.token);

  // Deletes last, so the records the other operations need still exist; the command is cancelled
  // before its device is unassigned (which would fail it).
  // A template's or photo's delete before its user's.
  const rank = (o: { method: string; path: string }) =>
    o.method !== 'DELETE' ? 0 : o.path.startsWith('/api/commands') || o.path.includes('/templates/') || o.path.endsWith('/photo') ? 1 : 2;
  const walk = ops(doc).sort((x, y) => rank(x) - rank(y));
  let calls = 0;
  for (const { path, method, op } of walk) {
    // A path parameter the document restricts to named values (a scenario's name) takes the first of them.
    const named = (name: string) => op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
    const concrete = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const schema = named(name);
      const choice = schema?.enum?.[0] ?? schema?.anyOf?.find((m) => 'const' in m)?.const;
      return encodeURIComponent(String(choice ?? pathValue(path, name)));
    });
    const queries = [''];
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    if (queryParams.length > 0) {
      // Once bare, once with every query parameter filled from its schema.
      const q = new URLSearchParams(queryParams.map((p): [string, string] => [p.name, String(sample(p.schema, p.name, known))]));
      queries.push(`?${q.toString()}`);
    }
    const admin = op.security.some((s) => 'AdminToken' in s);
    const requestSchema = op.requestBody?.content['application/json']?.schema;
    const body = requestSchema ? sample(requestSchema, 'body', known) : undefined;
    // A photo upload takes an image, not JSON.
    const raw = op.requestBody?.content['image/jpeg'] ? { raw: await tinyJpeg(), headers: { 'content-type': 'image/jpeg' } } : {};
    for (const query of queries) {
      const res = await call(method, `${concrete}${query}`, {
        ...raw,
        ...(body !== undefined ? { body } : {}),
        ...(admin ? { token: ADMIN_TOKEN } : {}),
      });
      calls++;
      const label = `${method} ${concrete}${query} ${body === undefined ? '' : JSON.stringify(body)}`;
      t.not(res.status, 500, `${label}: never 500`);
      t.ok(op.responses[String(res.status)], `${label}: status ${res.status} is documented`);
      // The walk's own POST /api/access-levels named the schedule: its delete is refused as documented.
      // The walk's punch is a manual one: no terminal took a photo of it.
      if (path === '/api/attendance/{attendance_id}/photo') {
        t.match(res, { status: 404, body: { code: 'PHOTO_NOT_FOUND' } }, `${label}: 404 for a manual punch`);
        continue;
      }
      if (method === 'DELETE' && path === '/api/schedules/{schedule_id}') {
        t.match(res, { status: 409, body: { code: 'SCHEDULE_IN_USE' } }, `${label}: 409 while a level names it`);
        continue;
      }
      t.ok(res.status >= 200 && res.status < 300, `${label}: 2xx (got ${res.status} ${JSON.stringify(res.body).slice(0, 200)})`);
      const schema = schemaOf.get(`${method} ${path}`)?.[res.status] as TSchema | null | undefined;
      if (schema) {
        const issues = issuesFrom(compiled(schema), res.body, ['response']);
        t.strictSame(issues, [], `${label}: the body matches the documented ${res.status} schema`);
      }
    }
  }
  t.ok(calls >= ops(doc).length, `walked ${calls} calls over ${ops(doc).length} operations`);
});

/** An 8 × 8 grey JPEG: a photo upload the walk can send. */
const tinyJpeg = () =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
    .jpeg()
    .toBuffer();
