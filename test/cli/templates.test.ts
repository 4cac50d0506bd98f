/**
 * `biogate templates export|import` (issue #35 item 5), on both stores (test/mongo-api-leg.mjs runs test/cli): an
 * NDJSON export of one location imported into another gives the same templates, delivered to its terminal; bad lines
 * are reported with their numbers and skipped, nothing of them written; a second import changes nothing.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { tempDir, waitFor } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { gateway, type Json } from '../api/client.js';

const FP = Buffer.from('exported-fingerprint-'.repeat(16)).toString('base64');
const FACE = Buffer.from('exported-face-'.repeat(40)).toString('base64');

t.test('export from one location, import into another: the same templates reach its terminal', async (t) => {
  const g = await gateway(t, { config: { longpollS: 1 } });
  const { a } = g;
  const b = await g.tenant('Branch');
  const env = { BIOGATE_STORE: g.started.storeUrl };
  for (const api of [a.api, b.api]) t.equal((await api('POST', '/api/users', { body: { pin: 7, first_name: 'Ann' } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 8, first_name: 'Bo' } })).status, 201);
  t.equal(
    (await a.api('PUT', '/api/users/7/templates/1/3', { body: { major_ver: 12, minor_ver: 0, format: 0, template: FP } })).status,
    201,
  );
  const face = { major_ver: 5, minor_ver: 8, format: 0, template: FACE, template_index: 1 };
  t.equal((await a.api('PUT', '/api/users/7/templates/9/0', { body: face })).status, 201);
  t.equal(
    (await a.api('PUT', '/api/users/8/templates/1/0', { body: { major_ver: 12, minor_ver: 0, format: 0, template: FP } })).status,
    201,
  );

  const exported = await cli(['templates', 'export', '--location', String(a.id)], env);
  t.equal(exported.code, 0, exported.stderr);
  const lines = exported.stdout.trim().split('\n');
  t.same(
    lines.map((l) => JSON.parse(l) as Json),
    [
      { pin: 7, type: 1, index: 3, template_index: 0, major_ver: 12, minor_ver: 0, format: 0, valid: 1, duress: false, template: FP },
      { pin: 7, type: 9, index: 0, template_index: 1, major_ver: 5, minor_ver: 8, format: 0, valid: 1, duress: false, template: FACE },
      { pin: 8, type: 1, index: 0, template_index: 0, major_ver: 12, minor_ver: 0, format: 0, valid: 1, duress: false, template: FP },
    ],
    'one line a template, by user and slot',
  );

  t.equal((await b.api('POST', '/api/devices', { body: { sn: 'TPL-IMPORT-V3', name: 'door' } })).status, 201);
  const sim = createSimulatedDevice({ url: g.url, sn: 'TPL-IMPORT-V3', protocol: 'v3', fpVersion: 12, pollDelayMs: 50, fast: true });
  t.teardown(() => sim.stop());
  sim.start();
  await waitFor(() => sim.stats.polls > 0, 20_000, 'the terminal of location B');

  const dir = await tempDir(t);
  const file = join(dir, 'templates.ndjson');
  const bad = [
    'not json',
    JSON.stringify({ pin: 7, type: 3, index: 0, major_ver: 1, minor_ver: 0, format: 0, template: FP }),
    JSON.stringify({ pin: 7, type: 1, index: 4, major_ver: 12, minor_ver: 0, format: 0, template: 'bad!' }),
  ];
  // Lines 1, 2: good; 3: blank; 4–6: bad; 7: user 8 is not in location B; 8: good.
  await writeFile(file, [lines[0], lines[1], '', ...bad, lines[2], ''].join('\n') + '\n');
  const imported = await cli(['templates', 'import', '--location', String(b.id), file], env);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.stdout, /^Imported 2 templates \(0 already stored as they are\) for 1 users, 4 lines skipped/);
  t.match(imported.stdout, /line 4: not JSON/);
  t.match(imported.stdout, /line 5: type: biometric type 3 is not one BioGate knows/);
  t.match(imported.stdout, /line 6: template: /);
  t.match(imported.stdout, /line 7: no user with PIN 8 in location/);
  t.notOk(imported.stdout.includes(FP), 'the report never prints template bytes');

  const inB = (await b.api<{ templates: Json[] }>('GET', '/api/users/7/templates')).body.templates;
  t.same(
    inB.map(({ size: _s, source_sn: _sn, created_at: _c, updated_at: _u, pin: _p, ...rest }) => rest),
    lines.slice(0, 2).map((l) => {
      const { pin: _p, ...rest } = JSON.parse(l) as Json;
      return rest;
    }),
    'location B holds the exported templates of user 7',
  );
  t.equal((await b.api('GET', '/api/users/8')).status, 404, 'the import created no user');
  await waitFor(
    () => sim.templates('7').some((x) => x.type === 1 && x.no === 3 && x.tmp === FP),
    30_000,
    'the fingerprint on the terminal',
  );
  t.pass('the imported fingerprint reached the terminal of location B with the same bytes');

  const again = await cli(['templates', 'import', '--location', String(b.id), '--json', file], env);
  t.match(JSON.parse(again.stdout), { written: 0, unchanged: 2, users: 0, errors: [{ line: 4 }, { line: 5 }, { line: 6 }, { line: 7 }] });

  const allBad = join(dir, 'bad.ndjson');
  await writeFile(allBad, bad.join('\n'));
  t.equal((await cli(['templates', 'import', '--location', String(b.id), allBad], env)).code, 1, 'nothing importable: exit 1');
  t.match(await cli(['templates', 'import', '--location', String(b.id), join(dir, 'missing')], env), { code: 2, stderr: /cannot read/ });
  t.match(await cli(['templates', 'import', '--location', String(b.id)], env), { code: 2, stderr: /give the FILE/ });
  t.match(await cli(['templates', 'export', '--location', '999'], env), { code: 1, stderr: /Location 999 not found/ });
});
