/**
 * An integrator's client generated from the served document (issue #17): openapi-typescript
 * generates the types, openapi-fetch is the client, TypeScript checks an integrator's flow
 * against the generated types, and the compiled flow runs against the real app: register a
 * device, create a user, queue a command (with an Idempotency-Key), read it back, list by status,
 * read the attendance feed.
 *
 * The types must accept what the server sends (the reason for `enum` instead of `anyOf` of
 * `const`s: status `success`, version `3.0.0`), and must refuse what it never sends: a flow
 * using an unknown status does not compile.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { gateway } from './client.js';

const require = createRequire(import.meta.url);
const generatorBin = join(require.resolve('openapi-typescript/package.json'), '..', 'bin', 'cli.js');
const tscBin = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc');

function run(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

const TSC_FLAGS = [
  '--strict',
  '--noEmitOnError',
  '--skipLibCheck',
  '--target',
  'es2022',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
];

/** What an integrator writes, typed by the generated `paths`. */
const FLOW = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Command = components['schemas']['CommandResponse'];

export async function flow(baseUrl: string, token: string) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });
  const device = await api.POST('/api/devices', { body: { sn: 'GEN1', version: '3.0.0' } });
  if (!device.data) throw new Error(\`device: \${device.response.status}\`);
  const user = await api.POST('/api/users', { body: { pin: 4242, first_name: 'Generated' } });
  if (!user.data) throw new Error(\`user: \${user.response.status}\`);
  const key = { header: { 'Idempotency-Key': 'gen-flow-1' } };
  const queued = await api.POST('/api/commands', { params: key, body: { sn: 'GEN1', command: 'door-open', params: { duration: 3 } } });
  const again = await api.POST('/api/commands', { params: key, body: { sn: 'GEN1', command: 'door-open', params: { duration: 3 } } });
  if (!queued.data || !again.data) throw new Error(\`queue: \${queued.response.status}\`);
  const read = await api.GET('/api/commands/{command_id}', { params: { path: { command_id: queued.data.id } } });
  if (!read.data) throw new Error(\`read: \${read.response.status}\`);
  const status: Command['status'] = read.data.status;
  const finished: Command['status'][] = ['success', 'failed'];
  const pending = await api.GET('/api/commands', { params: { query: { status: 'pending', limit: 50 } } });
  const feed = await api.GET('/api/attendance', { params: { query: { after: '0' } } });
  const cursor = feed.data && 'next_cursor' in feed.data ? feed.data.next_cursor : null;
  const missing = await api.GET('/api/commands/{command_id}', { params: { path: { command_id: 999999 } } });
  return {
    device: device.data.serial_number, version: device.data.version_override, user: user.data.pin,
    queued: queued.data.id, again: again.data.id, status, finished: finished.includes(status),
    pending: pending.data?.data.map((c) => c.id) ?? [], cursor,
    missing: { status: missing.response.status, code: missing.error?.code },
  };
}
`;

/** Does not compile: `succeeded` is not a command status. */
const WRONG = `
import type { components } from './schema.js';
export const s: components['schemas']['CommandResponse']['status'] = 'succeeded';
`;

t.test('generated client: types from the document, a typed flow, run against the app', async (t) => {
  const { a, url } = await gateway(t);
  // Under node_modules/ so that the compiled flow resolves openapi-fetch like an integrator's project.
  await mkdir(join(process.cwd(), 'node_modules', '.cache'), { recursive: true });
  const dir = await mkdtemp(join(process.cwd(), 'node_modules', '.cache', 'biogate-client-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const doc = await a.api('GET', '/api/openapi.json', { token: null });
  await writeFile(join(dir, 'openapi.json'), JSON.stringify(doc.body));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));

  const generated = await run([generatorBin, 'openapi.json', '--output', 'schema.ts'], dir);
  t.equal(generated.code, 0, `openapi-typescript generates the types:\n${generated.out}`);

  await writeFile(join(dir, 'flow.ts'), FLOW);
  const compiled = await run([tscBin, ...TSC_FLAGS, '--outDir', 'out', 'flow.ts'], dir);
  t.equal(compiled.code, 0, `the flow type-checks against the generated types:\n${compiled.out}`);

  await writeFile(join(dir, 'wrong.ts'), WRONG);
  const wrong = await run([tscBin, ...TSC_FLAGS, '--noEmit', 'wrong.ts'], dir);
  t.not(wrong.code, 0, 'a status the API never sends does not type-check');
  t.match(wrong.out, /"succeeded"/, 'tsc names the wrong value');

  const { flow } = (await import(pathToFileURL(join(dir, 'out', 'flow.js')).href)) as {
    flow: (url: string, token: string) => Promise<Record<string, unknown>>;
  };
  const result = await flow(url, a.token);
  t.match(result, {
    device: 'GEN1',
    version: '3.0.0',
    user: 4242,
    status: 'pending',
    finished: false,
    cursor: '0',
    missing: { status: 404, code: 'COMMAND_NOT_FOUND' },
  });
  t.equal(result['again'], result['queued'], 'the same Idempotency-Key gives the same command');
  t.ok(
    (result['pending'] as number[]).includes(result['queued'] as number),
    'listed by status (with what the gateway queued itself on assignment)',
  );
});
