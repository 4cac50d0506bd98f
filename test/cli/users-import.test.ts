// `biogate users import`: CSV and JSON files through the API's validation, against a running app's store.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { decodeCsvBytes, parseCsvTable } from '../../src/cli/csv-in.js';
import { detectDelimiter, normaliseHeader } from '../../src/csv-table.js';
import { csvToItems } from '../../src/cli/users-import.js';
import { bearer, fetchJson, startApp, tempDir } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

t.test('CSV text: delimiters detected, quotes, CRLF, blank lines, header names normalised, line numbers', async (t) => {
  t.equal(detectDelimiter('pin;first_name;"a,b"\n1;2;3'), ';');
  t.equal(detectDelimiter('pin\tfirst name\n'), '\t');
  t.equal(detectDelimiter('"a;b",c,d\n'), ',', 'a delimiter inside quotes does not count');
  t.equal(detectDelimiter('pin\n1\n'), ',', 'one column: comma');
  t.equal(normaliseHeader('  First Name '), 'first_name');
  t.equal(normaliseHeader('PIN'), 'pin');
  t.equal(normaliseHeader('card-no'), 'card_no');

  const table = parseCsvTable('PIN,Note\r\n1,"x, y"\r\n2,"say ""hi""\r\nsecond line"\r\n\r\n\r\n3,\r\n');
  t.same(table.header, ['pin', 'note']);
  t.same(table.rows, [
    { line: 2, cells: ['1', 'x, y'] },
    { line: 3, cells: ['2', 'say "hi"\nsecond line'] },
    { line: 7, cells: ['3', ''] },
  ]);
  t.same(csvToItems('pin,first_name,privilege,is_active,password,shoe size\n7,Ann,6,false,0123,44\n8,,x,maybe,\n').items, [
    { pin: '7', first_name: 'Ann', privilege: 6, is_active: false, password: 123 },
    { pin: '8', privilege: 'x', is_active: 'maybe' },
  ]);
  t.same(csvToItems('pin,shoe size\n1,44\n').ignored, ['shoe_size']);
  t.same(
    csvToItems('pin,Department,position\n1,Sales ,Clerk\n2,,\n').items,
    [{ pin: '1', department: 'Sales', position: 'Clerk' }, { pin: '2' }],
    'department and position are user columns (an empty cell leaves them as stored)',
  );
  t.throws(() => csvToItems('name,card\nAnn,1\n'), /must name a "pin" column \(found: name, card\)/);
});

t.test('an unterminated quote names the line it opens on', async (t) => {
  t.throws(() => parseCsvTable('pin,first_name\n1,Ann\n2,"Bo\n3,Cy\n'), /^line 3: a quoted field is never closed/);
  t.throws(() => parseCsvTable('pin,note\n1,"two\nlines"\n2,ok\n3,"open\n'), /^line 5: /, 'after a closed multi-line field');
});

t.test('bytes: BOMs, UTF-16 without a BOM, invalid UTF-8 as Windows-1252, --encoding', async (t) => {
  const jose = Buffer.from('pin,first_name\n1,José\n', 'latin1');
  t.same(decodeCsvBytes(jose), { text: 'pin,first_name\n1,José\n', encoding: 'windows-1252', detected: true });
  t.same(decodeCsvBytes(Buffer.from('1,José', 'utf8')), { text: '1,José', encoding: 'utf-8', detected: true });
  t.same(decodeCsvBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x41])), { text: 'A', encoding: 'utf-8', detected: false });
  t.same(decodeCsvBytes(Buffer.from('\ufeffpin', 'utf16le')), { text: 'pin', encoding: 'utf-16le', detected: false });
  t.same(decodeCsvBytes(Buffer.from('pin,first_name\n', 'utf16le')), { text: 'pin,first_name\n', encoding: 'utf-16le', detected: true });
  t.same(decodeCsvBytes(Buffer.from('€1', 'utf8'), 'latin1').encoding, 'latin1');
  t.equal(decodeCsvBytes(Buffer.from([0x80]), 'windows-1252').text, '€');
  t.equal(decodeCsvBytes(Buffer.from([0x80]), 'CP1252').text, '€', 'names are case-insensitive');
  t.throws(() => decodeCsvBytes(Buffer.from('x'), 'klingon'), /--encoding: unknown encoding "klingon"/);
});

t.test('users import from CSV and JSON, with per-item errors, visible through the API', async (t) => {
  const app = await startApp(t);
  const dir = await tempDir(t);
  const env = { BIOGATE_STORE: app.storeUrl };
  const csv = join(dir, 'people.csv');
  await writeFile(csv, 'pin,first_name,last_name,card_no,privilege\n1001,Ann,Lee,123,0\n1002,Bo,,,14\nabc,Bad,,,0\n1003,,,,0\n');
  const r = await cli(['users', 'import', '--location', String(app.locationId), csv, '--json'], env);
  t.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as {
    processed_count: number;
    error_count: number;
    errors: { line: number; user_data: { pin: string }; code: string }[];
  };
  t.equal(report.processed_count, 2);
  t.equal(report.error_count, 2);
  t.same(
    report.errors.map((e) => [e.line, e.user_data.pin, e.code]),
    [
      [4, 'abc', 'VALIDATION_FAILED'],
      [5, '1003', 'VALIDATION_FAILED'],
    ],
  );

  const json = join(dir, 'people.json');
  await writeFile(json, JSON.stringify([{ pin: 1002, first_name: 'Bob' }]));
  t.equal((await cli(['users', 'import', '--location', String(app.locationId), json], env)).code, 0);

  const { body } = await fetchJson(`${app.url}/api/users`, { headers: bearer(app.token) });
  const users = (body as { data: { pin: number; first_name: string; privilege: number }[] }).data;
  t.same(
    users.map((u) => [u.pin, u.first_name, u.privilege]),
    [
      [1001, 'Ann', 0],
      [1002, 'Bob', 14],
    ],
  );
});

t.test('users import: bad flags and files exit 2 and write nothing', async (t) => {
  const app = await startApp(t);
  const dir = await tempDir(t);
  const env = { BIOGATE_STORE: app.storeUrl };
  const bad = join(dir, 'bad.json');
  await writeFile(bad, '[{"pin": 1,');
  for (const argv of [
    ['users', 'import', bad],
    ['users', 'import', '--location', 'x', bad],
    ['users', 'import', '--location', String(app.locationId)],
    ['users', 'import', '--location', String(app.locationId), bad],
    ['users', 'import', '--location', '999', join(dir, 'missing.csv')],
  ]) {
    const r = await cli(argv, env);
    t.equal(r.code, 2, `${argv.join(' ')} → 2`);
    t.match(r.stderr, /^biogate users import: /);
  }
  t.equal(await app.app.store.users.count(app.locationId), 0);
});

interface Report {
  message: string;
  dry_run: boolean;
  processed_count: number;
  error_count: number;
  errors: { line?: number; item?: number; error: string; user_data: { pin: string } }[];
}

t.test('fixtures: every delimiter and encoding imports the names exactly; errors name CSV lines', async (t) => {
  const app = await startApp(t);
  const env = { BIOGATE_STORE: app.storeUrl };
  const run = async (name: string, ...flags: string[]) => {
    const r = await cli(['users', 'import', '--location', String(app.locationId), fixture(name), '--json', ...flags], env);
    return { ...r, report: JSON.parse(r.stdout || '{}') as Report };
  };

  const comma = await run('users-comma-utf8-bom.csv');
  t.equal(comma.code, 0, comma.stderr);
  t.match(comma.stderr, /ignoring columns that are not user fields: notes/);
  t.equal(comma.report.processed_count, 2);
  t.same(
    comma.report.errors.map((e) => [e.line, e.user_data.pin]),
    [
      [6, 'abc'],
      [7, '1003'],
    ],
    'lines counted across a two-line field and a blank line',
  );
  t.match(comma.report.errors[1]?.error, /privilege/);

  for (const name of ['users-semicolon-cp1252.csv', 'users-tab-utf16le.txt', 'users-comma-utf16be.csv']) {
    const r = await run(name);
    t.equal(r.code, 0, `${name}: ${r.stderr}`);
    t.equal(r.report.error_count, 0, `${name}: ${JSON.stringify(r.report.errors)}`);
  }
  const human = await cli(
    ['users', 'import', '--location', String(app.locationId), fixture('users-semicolon-cp1252.csv'), '--dry-run'],
    env,
  );
  t.match(human.stdout, /CSV, semicolon-separated, windows-1252 \(detected\)/);

  // Detection reads these bytes as UTF-8 ("René"); the operator who knows better says so.
  t.equal((await run('users-ambiguous-cp1252.csv')).code, 0);
  const ambiguous = await run('users-ambiguous-cp1252.csv', '--encoding', 'windows-1252');
  t.equal(ambiguous.code, 0, ambiguous.stderr);

  const { body } = await fetchJson(`${app.url}/api/users?limit=100`, { headers: bearer(app.token) });
  const names = Object.fromEntries(
    (body as { data: { pin: number; first_name: string | null; last_name: string | null }[] }).data.map((u) => [
      u.pin,
      [u.first_name, u.last_name],
    ]),
  );
  t.same(names, {
    1001: ['Ann', 'Lee, Jr.'],
    1002: ['Bo "Bobby"', 'Ng'],
    2001: ['José', 'Müller'],
    2002: ['François', 'Ærø'],
    2003: ['Björk', 'Guðmundsdóttir'],
    3001: ['李', '小龙'],
    3002: ['Жанна', 'Иванова'],
    4001: ['Łukasz', null],
    6001: ['RenÃ©', null],
  });
});

t.test('fixtures: a broken quote imports nothing and names the line; --dry-run writes nothing', async (t) => {
  const app = await startApp(t);
  const env = { BIOGATE_STORE: app.storeUrl };
  const broken = await cli(['users', 'import', '--location', String(app.locationId), fixture('users-broken-quote.csv')], env);
  t.equal(broken.code, 2);
  t.equal(broken.stderr, 'biogate users import: line 3: a quoted field is never closed (a missing " ); nothing was imported\n');

  const dry = await cli(['users', 'import', '--location', String(app.locationId), fixture('users-comma-utf8-bom.csv'), '--dry-run'], env);
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, /^Dry run: 2 users would be imported, 2 errors; nothing was written/);
  t.match(dry.stdout, /\n {2}line 6: pin: /);
  t.match(dry.stdout, /\n {2}line 7: privilege: /);

  const json = join(await tempDir(t), 'people.json');
  await writeFile(json, JSON.stringify([{ pin: 1, first_name: 'A' }, { pin: 'x' }]));
  const dryJson = await cli(['users', 'import', '--location', String(app.locationId), json, '--dry-run', '--json'], env);
  const report = JSON.parse(dryJson.stdout) as Report;
  t.same([report.dry_run, report.processed_count, report.errors.map((e) => e.item)], [true, 1, [2]], 'JSON items are named by position');
  t.equal(await app.app.store.users.count(app.locationId), 0, 'nothing written');

  const badEncoding = await cli(
    ['users', 'import', '--location', String(app.locationId), fixture('users-comma-utf16be.csv'), '--encoding', 'ebcdic-klingon'],
    env,
  );
  t.equal(badEncoding.code, 2);
  t.match(badEncoding.stderr, /--encoding: unknown encoding/);
});

t.test('an import file over 32 MiB is refused before it is read', async (t) => {
  const dir = await tempDir(t);
  const big = join(dir, 'big.csv');
  await writeFile(big, Buffer.alloc(32 * 1024 * 1024 + 1, 0x41));
  const r = await cli(['users', 'import', '--location', '1', big], { BIOGATE_STORE: `sqlite:${join(dir, 's.db')}` });
  t.equal(r.code, 2);
  t.match(r.stderr, /an import file may be at most 33554432 bytes/);
});
