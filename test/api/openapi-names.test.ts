/**
 * The document's names (issue #38 item 5): the records under the service description's names (`Location`,
 * `LocationBasic`, `UserResponse`, `DeviceResponse`, `CommandResponse`, a page wrapper per record type), every object
 * shape a named component, readable operation ids; and clients generated from it by the real generators get those
 * names and none they make up (`CommandLocationType0`, `get_api_users_pin_response_200`).
 *
 * The Python client comes from openapi-python-client (PyPI, installed by .ci/run; BIOGATE_OPENAPI_PYTHON_CLIENT names
 * its binary, the test skips visibly without it) and is run against the app; the TypeScript one from openapi-typescript
 * with root types, type-checked by tsc.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t from 'tap';
import { ComponentNames } from '../../src/api/openapi-names.js';
import { OPERATION_IDS } from '../../src/api/operation-ids.js';
import { gateway, type Json } from './client.js';
import type { Teardown } from '../helpers/app.js';

interface Doc {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Json }> }> }>>;
  components: { schemas: Record<string, Json> };
}

const require = createRequire(import.meta.url);
const generatorBin = join(require.resolve('openapi-typescript/package.json'), '..', 'bin', 'cli.js');
const tscBin = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc');
const PYTHON_GENERATOR = process.env['BIOGATE_OPENAPI_PYTHON_CLIENT'];

function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 180_000, env: { ...process.env, NO_COLOR: '1', ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Object schemas written inline (not a `$ref`) anywhere under `node`, by JSON path. */
function inlineObjects(node: unknown, path: string, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => inlineObjects(n, `${path}[${i}]`, out));
  else if (isObject(node)) {
    if (node['type'] === 'object') out.push(path);
    for (const [k, v] of Object.entries(node))
      if (k !== 'examples' && k !== 'default' && k !== 'enum') inlineObjects(v, `${path}.${k}`, out);
  }
  return out;
}

async function scratch(t: Teardown): Promise<string> {
  const base = join(process.cwd(), 'node_modules', '.cache');
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, 'biogate-names-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('the document: named records and page wrappers, no inline object shapes, readable operation ids', async (t) => {
  const { a } = await gateway(t);
  const doc = (await a.api<Doc>('GET', '/api/openapi.json', { token: null })).body;
  const schemas = doc.components.schemas;

  for (const name of ['Location', 'LocationBasic', 'UserResponse', 'BiometricTemplateResponse', 'DeviceResponse', 'CommandResponse'])
    t.ok(schemas[name], `components/schemas/${name}`);
  const locationOf = (name: string) => JSON.stringify((schemas[name]?.['properties'] as Json | undefined)?.['location']);
  for (const record of ['UserResponse', 'DeviceResponse', 'CommandResponse'])
    t.match(locationOf(record), '#/components/schemas/LocationBasic', `${record}.location is LocationBasic or null`);

  const answer = (path: string, method: string, status = '200') =>
    doc.paths[path]?.[method]?.responses[status]?.content?.['application/json']?.schema;
  t.strictSame(answer('/api/me', 'get'), { $ref: '#/components/schemas/Me' }, 'GET /api/me: Me (Location and the calling token)');
  t.strictSame(answer('/api/users', 'get'), { $ref: '#/components/schemas/UserPage' }, 'GET /api/users: UserPage');
  t.strictSame(answer('/api/devices', 'get'), { $ref: '#/components/schemas/DevicePage' }, 'GET /api/devices: DevicePage');
  t.strictSame(answer('/api/commands', 'get'), { $ref: '#/components/schemas/CommandPage' }, 'GET /api/commands: CommandPage');
  t.strictSame(answer('/api/users/{pin}', 'get'), { $ref: '#/components/schemas/UserResponse' }, 'GET /api/users/{pin}: UserResponse');
  t.strictSame(
    answer('/api/commands', 'post', '201'),
    { $ref: '#/components/schemas/CommandResponse' },
    'POST /api/commands: CommandResponse',
  );
  for (const [record, page] of [
    ['UserResponse', 'UserPage'],
    ['DeviceResponse', 'DevicePage'],
    ['CommandResponse', 'CommandPage'],
    ['Attendance', 'AttendancePage'],
  ] as const) {
    t.match(
      schemas[page],
      {
        required: ['data', 'total', 'page', 'limit', 'total_pages', 'has_next', 'has_prev'],
        properties: { data: { type: 'array', items: { $ref: `#/components/schemas/${record}` } } },
      },
      `${page} wraps ${record}`,
    );
  }

  const inline: string[] = [];
  for (const [name, s] of Object.entries(schemas)) inlineObjects(s['properties'] ?? {}, name, inline);
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods))
      for (const [status, r] of Object.entries(op.responses))
        if (Number(status) < 300) inlineObjects(r.content?.['application/json']?.schema, `${method} ${path} ${status}`, inline);
  t.strictSame(inline, [], 'no object shape inside a component or an answer is written inline');
  for (const name of Object.keys(schemas)) t.match(name, /^[A-Z][A-Za-z0-9]*$/, `${name}: a PascalCase name`);

  const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
  t.equal(new Set(ids).size, ids.length, 'operation ids are unique');
  t.strictSame(
    [...ids].sort(),
    Object.values(OPERATION_IDS).sort(),
    'every operation has its id from the table, and the table no stale one',
  );
  for (const id of ids) t.match(id, /^[a-z][A-Za-z]*$/, `${id}: camelCase words`);
  t.equal(doc.paths['/api/users']?.['get']?.operationId, 'listUsers');
  t.equal(doc.paths['/api/users/{pin}']?.['get']?.operationId, 'getUser');
  t.equal(doc.paths['/api/commands']?.['post']?.operationId, 'queueCommand');
});

t.test('one name, one shape: a name for two shapes, or a shape under two derived names, does not build', async (t) => {
  const names = new ComponentNames();
  names.name({ type: 'object', title: 'Thing', properties: { a: { type: 'string' } } }, 'X');
  t.throws(
    () => names.name({ type: 'object', title: 'Thing', properties: { b: { type: 'string' } } }, 'X'),
    /two different shapes are both named Thing/,
  );
  const twice = new ComponentNames();
  twice.name({ type: 'object', properties: { id: { type: 'integer' } } }, 'FirstResult');
  t.throws(() => twice.name({ type: 'object', properties: { id: { type: 'integer' } } }, 'SecondResult'), /same shape; define it once/);
  const titled = new ComponentNames();
  titled.name({ type: 'object', title: 'LocationBasic', properties: { id: { type: 'integer' } } }, 'X');
  t.doesNotThrow(
    () => titled.name({ type: 'object', title: 'AreaBasic', properties: { id: { type: 'integer' } } }, 'X'),
    'two titled records may look alike',
  );
  const nested = new ComponentNames();
  const ref = nested.name(
    {
      type: 'object',
      title: 'Outer',
      properties: { inner: { anyOf: [{ type: 'object', properties: { x: { type: 'integer' } } }, { type: 'null' }] } },
    },
    'X',
  );
  t.strictSame(ref, { $ref: '#/components/schemas/Outer' });
  t.strictSame(nested.schemas['Outer']?.['properties'], {
    inner: { anyOf: [{ $ref: '#/components/schemas/OuterInner' }, { type: 'null' }] },
  });
});

t.test('a TypeScript client (openapi-typescript, root types) names the records', async (t) => {
  const { url, a } = await gateway(t);
  const dir = await scratch(t);
  const generated = await run(
    process.execPath,
    [generatorBin, `${url}/api/openapi.json`, '--root-types', '--root-types-no-schema-prefix', '-o', 'schema.ts'],
    dir,
  );
  t.equal(generated.code, 0, `openapi-typescript generates:\n${generated.out}`);
  await writeFile(
    join(dir, 'flow.ts'),
    `import type { paths, CommandPage, CommandResponse, DevicePage, LocationBasic, UserPage, UserResponse } from './schema.js';
type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const users: Same<Answer<'/api/users', 'get'>, UserPage> = true;
export const user: Same<Answer<'/api/users/{pin}', 'get'>, UserResponse> = true;
export const devices: Same<Answer<'/api/devices', 'get'>, DevicePage> = true;
export const commands: Same<Answer<'/api/commands', 'get'>, CommandPage> = true;
export const item: Same<UserPage['data'][number], UserResponse> = true;
export const location: Same<CommandResponse['location'], LocationBasic | null> = true;
`,
  );
  const compiled = await run(
    process.execPath,
    [tscBin, '--strict', '--noEmit', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'flow.ts'],
    dir,
  );
  t.equal(compiled.code, 0, `the answers are the named types:\n${compiled.out}`);
  void a;
});

t.test(
  'a Python client (openapi-python-client) has the records under their names, and none made up',
  { skip: PYTHON_GENERATOR ? false : 'BIOGATE_OPENAPI_PYTHON_CLIENT is not set (.ci/run installs openapi-python-client)' },
  async (t) => {
    const { url, a } = await gateway(t);
    const dir = await scratch(t);
    await writeFile(join(dir, 'openapi.json'), JSON.stringify((await a.api('GET', '/api/openapi.json', { token: null })).body));
    const generated = await run(
      PYTHON_GENERATOR!,
      ['generate', '--path', 'openapi.json', '--meta', 'none', '--output-path', 'biogate_client'],
      dir,
    );
    t.equal(generated.code, 0, `openapi-python-client generates:\n${generated.out}`);
    const models = (await readdir(join(dir, 'biogate_client', 'models'))).filter((f) => f.endsWith('.py') && f !== '__init__.py');
    for (const model of [
      'location',
      'location_basic',
      'user_response',
      'biometric_template_response',
      'device_response',
      'command_response',
      'user_page',
      'device_page',
      'command_page',
    ])
      t.ok(models.includes(`${model}.py`), `models/${model}.py`);
    t.strictSame(
      models.filter((f) => /type_\d|response_\d{3}|^(get|post|put|patch|delete)_(api|admin)_/.test(f)),
      [],
      'no model named after a union member, a status code or a path',
    );
    const calls = await readdir(join(dir, 'biogate_client', 'api', 'users'));
    for (const call of ['list_users.py', 'get_user.py', 'upsert_user.py', 'delete_user.py'])
      t.ok(calls.includes(call), `api/users/${call}`);

    // The client itself, against the app: a user and a device, read back as the named classes.
    await a.api('POST', '/api/users', { body: { pin: 4242, first_name: 'Named' } });
    await a.api('POST', '/api/devices', { body: { sn: 'NAMES1' } });
    const script = `
import json
from biogate_client import AuthenticatedClient
from biogate_client.api.users import list_users, get_user
from biogate_client.api.devices import list_devices
client = AuthenticatedClient(base_url=${JSON.stringify(url)}, token=${JSON.stringify(a.token)})
page = list_users.sync(client=client)
user = get_user.sync(client=client, pin=4242)
devices = list_devices.sync(client=client)
print(json.dumps({
  "page": type(page).__name__, "item": type(page.data[0]).__name__, "location": type(page.data[0].location).__name__,
  "user": type(user).__name__, "first_name": user.first_name,
  "devices": type(devices).__name__, "device": type(devices.data[0]).__name__, "sn": devices.data[0].serial_number,
}))
`;
    await writeFile(join(dir, 'flow.py'), script);
    const python = join(dirname(PYTHON_GENERATOR!), 'python');
    const ran = await run(python, ['flow.py'], dir);
    t.equal(ran.code, 0, `the generated client runs:\n${ran.out}`);
    t.strictSame(JSON.parse(ran.out.trim().split('\n')[0] ?? '{}'), {
      page: 'UserPage',
      item: 'UserResponse',
      location: 'LocationBasic',
      user: 'UserResponse',
      first_name: 'Named',
      devices: 'DevicePage',
      device: 'DeviceResponse',
      sn: 'NAMES1',
    });
  },
);
