/**
 * The BioTime-compatible API's own OpenAPI document (issue #37 item 6): served at /biotime/openapi.json, linked from
 * /api/openapi.json, valid for redocly's recommended rules (all but the trailing-slash rule: BioTime's paths end in
 * a slash, and its clients call them so), and describing every path the facade serves.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import { fetchJson, startApp, tempDir } from '../helpers/app.js';

type Doc = { tags: { name: string; externalDocs?: { url: string } }[]; paths: Record<string, Record<string, { operationId: string }>> };
const redoclyBin = join(createRequire(import.meta.url).resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');

t.test('/biotime/openapi.json: linted, linked, complete', async (t) => {
  const app = await startApp(t);
  const { res, body } = await fetchJson(`${app.url}/biotime/openapi.json`);
  t.equal(res.status, 200, 'public, like /api/openapi.json');
  const doc = body as Doc;
  const served = [
    'post /biotime/api-token-auth/',
    'post /biotime/jwt-api-token-auth/',
    'get /biotime/iclock/api/transactions/',
    'get /biotime/iclock/api/transactions/{id}/',
    'get /biotime/iclock/api/terminals/',
    'get /biotime/iclock/api/terminals/{id}/',
    'get /biotime/personnel/api/employees/',
    'post /biotime/personnel/api/employees/',
    'get /biotime/personnel/api/employees/{id}/',
    'put /biotime/personnel/api/employees/{id}/',
    'patch /biotime/personnel/api/employees/{id}/',
    'delete /biotime/personnel/api/employees/{id}/',
    'get /biotime/personnel/api/departments/',
    'post /biotime/personnel/api/departments/',
    'get /biotime/personnel/api/departments/{id}/',
    'get /biotime/personnel/api/positions/',
    'post /biotime/personnel/api/positions/',
    'get /biotime/personnel/api/positions/{id}/',
    'get /biotime/personnel/api/areas/',
    'get /biotime/personnel/api/areas/{id}/',
  ];
  const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
  t.same(documented.sort(), [...served].sort(), 'exactly the paths the facade serves');
  const ids = documented.map((d) => doc.paths[d.split(' ')[1] as string]?.[d.split(' ')[0] as string]?.operationId);
  t.equal(new Set(ids).size, ids.length, 'unique operation ids');

  const file = join(await tempDir(t), 'biotime.json');
  await writeFile(file, JSON.stringify(doc));
  const lint = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(
      process.execPath,
      [redoclyBin, 'lint', file, '--format=stylish', '--skip-rule=no-path-trailing-slash'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}\n${stderr}` }),
    ),
  );
  t.equal(lint.code, 0, `redocly lint exits 0:\n${lint.out}`);
  t.notMatch(lint.out, /\d+:\d+\s+(warning|error)\s/, 'no warnings or errors');

  const main = (await fetchJson(`${app.url}/api/openapi.json`)).body as Doc;
  t.match(
    main.tags.find((x) => x.name === 'biotime'),
    { externalDocs: { url: '/biotime/openapi.json' } },
    'linked from the main document',
  );
  t.notOk(
    Object.keys(main.paths).some((p) => p.startsWith('/biotime/')),
    "the main document stays BioGate's own",
  );
});
