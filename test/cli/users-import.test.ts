// `biogate users import`: CSV and JSON files through the API's validation, against a running app's store.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { csvToItems, parseCsv } from '../../src/cli/users-import.js';
import { bearer, fetchJson, startApp, tempDir } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

t.test('CSV parsing: quotes, doubled quotes, CRLF, empty cells', async (t) => {
  t.same(parseCsv('a,b\r\n"x, y","say ""hi"""\n1,\n'), [['a', 'b'], ['x, y', 'say "hi"'], ['1', '']]);
  t.same(csvToItems('pin,first_name,privilege,is_active,password\n7,Ann,6,false,0123\n8,,x,maybe,\n'), [
    { pin: '7', first_name: 'Ann', privilege: 6, is_active: false, password: 123 },
    { pin: '8', privilege: 'x', is_active: 'maybe' },
  ]);
});

t.test('users import from CSV and JSON, with per-item errors, visible through the API', async (t) => {
  const app = await startApp(t);
  const dir = await tempDir(t);
  const env = { BIOGATE_STORE: app.storeUrl };
  const csv = join(dir, 'people.csv');
  await writeFile(csv, 'pin,first_name,last_name,card_no,privilege\n1001,Ann,Lee,123,0\n1002,Bo,,,14\nabc,Bad,,,0\n1003,,,,0\n');
  const r = await cli(['users', 'import', '--location', String(app.locationId), csv, '--json'], env);
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { processed_count: number; error_count: number; errors: { user_data: { pin: string }; code: string }[] };
  t.equal(report.processed_count, 2);
  t.equal(report.error_count, 2);
  t.same(report.errors.map((e) => [e.user_data.pin, e.code]), [['abc', 'VALIDATION_FAILED'], ['1003', 'VALIDATION_FAILED']]);

  const json = join(dir, 'people.json');
  await writeFile(json, JSON.stringify([{ pin: 1002, first_name: 'Bob' }]));
  t.equal((await cli(['users', 'import', '--location', String(app.locationId), json], env)).code, 0);

  const { body } = await fetchJson(`${app.url}/api/users`, { headers: bearer(app.token) });
  const users = (body as { data: { pin: number; first_name: string; privilege: number }[] }).data;
  t.same(users.map((u) => [u.pin, u.first_name, u.privilege]), [[1001, 'Ann', 0], [1002, 'Bob', 14]]);
});

t.test('users import: bad flags and files exit 2 and write nothing', async (t) => {
  const app = await startApp(t);
  const dir = await tempDir(t);
  const env = { BIOGATE_STORE: app.storeUrl };
  const bad = join(dir, 'bad.json');
  await writeFile(bad, '[{"pin": 1,');
  for (const argv of [['users', 'import', bad], ['users', 'import', '--location', 'x', bad], ['users', 'import', '--location', String(app.locationId)], ['users', 'import', '--location', String(app.locationId), bad], ['users', 'import', '--location', '999', join(dir, 'missing.csv')]]) {
    const r = await cli(argv, env);
    t.equal(r.code, 2, `${argv.join(' ')} → 2`);
    t.match(r.stderr, /^biogate users import: /);
  }
  t.equal(await app.app.store.users.count(app.locationId), 0);
});
