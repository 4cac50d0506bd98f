/**
 * The OpenAPI document as integrators' tools read it (issue #17): `redocly lint` (Redocly CLI,
 * recommended rules) passes on the document the running app serves; choice fields are `enum`s;
 * shared views are `components/schemas` referenced by `$ref`; optional query parameters are not
 * required; the Idempotency-Key header, 405 and 503 are documented; the preset catalog is in
 * `x-presets` and in the command operations' description.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { CATALOG } from '../../protocols/catalog.js';
import { ADMIN_TOKEN, tempDir } from '../helpers/app.js';
import { gateway, type Json } from './client.js';

type Doc = {
  paths: Record<string, Record<string, { parameters: Json[]; responses: Record<string, Json>; requestBody?: Json }>>;
  components: { schemas: Record<string, Json> };
  'x-presets': Json[];
};

const redoclyBin = join(createRequire(import.meta.url).resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');

function redoclyLint(file: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [redoclyBin, 'lint', file, '--format=stylish'],
      // No telemetry, no update check: the test talks to nothing but the file.
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

/** Every `anyOf` in the document whose members are all literals (what generators mistype). */
function literalUnions(node: unknown, at = '#'): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => literalUnions(n, `${at}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const o = node as Json;
  const here = Array.isArray(o['anyOf']) && (o['anyOf'] as Json[]).every((m) => 'const' in m || m['type'] === 'null') ? [at] : [];
  return [...here, ...Object.entries(o).flatMap(([k, v]) => literalUnions(v, `${at}/${k}`))];
}

function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs);
  if (node === null || typeof node !== 'object') return [];
  const o = node as Json;
  return [...(typeof o['$ref'] === 'string' ? [o['$ref']] : []), ...Object.values(o).flatMap(refs)];
}

t.test('redocly lint (recommended rules) passes on the served document', async (t) => {
  const { a } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const doc = (await a.api<Doc>('GET', '/api/openapi.json', { token: null })).body;
  const file = join(await tempDir(t), 'openapi.json');
  await writeFile(file, JSON.stringify(doc));
  const lint = await redoclyLint(file);
  t.equal(lint.code, 0, `redocly lint exits 0:\n${lint.out}`);
  t.match(lint.out, /valid/i, 'redocly reports the description valid');
  // Stylish lines are `line:col  warning|error  rule  message` (the Node 20 deprecation banner is not one).
  t.notMatch(lint.out, /\d+:\d+\s+(warning|error)\s/, 'and no warnings or errors');
  t.notMatch(lint.out, /\d+ warnings?\b/, 'no warning count');
});

t.test('enums, shared components, optional parameters, headers and statuses', async (t) => {
  const { a } = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const doc = (await a.api<Doc>('GET', '/api/openapi.json', { token: null })).body;

  t.strictSame(literalUnions(doc), [], 'no anyOf of consts left: every choice is an enum');
  t.strictSame(
    doc.components.schemas['CommandResponse']?.['properties'] &&
      (doc.components.schemas['CommandResponse']['properties'] as Json)['status'],
    {
      type: 'string',
      enum: ['pending', 'sent', 'success', 'failed'],
    },
    'command status is an enum',
  );
  t.match(doc.components.schemas['ProtocolVersion'], { type: 'string', enum: ['2.0.0', '3.0.0'] }, 'the protocol version is an enum');
  const version = JSON.stringify(doc.paths['/api/devices']?.['post']?.requestBody);
  t.match(version, /"\$ref":"#\/components\/schemas\/ProtocolVersion"/, 'the protocol version a device may be pinned to is that enum');

  for (const name of ['Error', 'Location', 'LocationBasic', 'Token', 'UserResponse', 'DeviceResponse', 'CommandResponse', 'Attendance'])
    t.ok(doc.components.schemas[name], `components/schemas/${name}`);
  const all = refs(doc);
  for (const r of new Set(all)) t.ok(doc.components.schemas[r.replace('#/components/schemas/', '')], `${r} resolves`);
  t.ok(all.includes('#/components/schemas/CommandResponse'), 'operations reference the CommandResponse view instead of repeating it');
  t.ok(
    JSON.stringify(doc.components.schemas['UserResponse']).includes('#/components/schemas/BiometricTemplateResponse'),
    'a view inside a view is referenced too',
  );
  t.notOk(JSON.stringify(doc.paths).includes('"created_by_token_id"'), 'no inline copy of the Command view in the paths');

  const listUsers = doc.paths['/api/users']?.['get'];
  for (const p of listUsers?.parameters ?? []) t.equal(p['required'], false, `GET /api/users ?${String(p['name'])} is optional`);

  for (const path of ['/api/commands', '/api/devices/{device_serial}/command']) {
    const op = doc.paths[path]?.['post'];
    const header = op?.parameters.find((p) => p['in'] === 'header' && p['name'] === 'Idempotency-Key');
    t.match(header, { required: false, schema: { type: 'string' } }, `POST ${path} documents Idempotency-Key`);
    const described = JSON.stringify(op?.requestBody);
    for (const preset of CATALOG) t.ok(described.includes(`\`${preset.id}\``), `POST ${path}: preset ${preset.id} in the body description`);
  }
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      t.ok(op.responses['405'], `${method} ${path}: 405 documented`);
      t.ok(op.responses['503'], `${method} ${path}: 503 documented`);
    }
  }

  t.strictSame(
    doc['x-presets'].map((p) => p['id']),
    CATALOG.map((p) => p.id),
    'x-presets: the whole catalog, in order',
  );
  t.match(
    doc['x-presets'].find((p) => p['id'] === 'door-open'),
    {
      protocol_versions: ['3.0.0'],
      risk: 'normal',
      default_expires_in: 60,
      params: { type: 'object', properties: { duration: { minimum: 1, maximum: 254, default: 5 } } },
    },
  );
  t.notOk(JSON.stringify(doc).includes('errorMessage'), 'validator-only annotations are not in the document');
});
