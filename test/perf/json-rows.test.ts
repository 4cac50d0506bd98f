// Issue #20: pages of users are read as one json_array text per row (jsonRowsReader, src/store/sqlite/db.ts)
// instead of better-sqlite3's raw rows. Whatever the stored values, both readers must give the same rows.
import t from 'tap';
import { jsonRowsReader, openDatabase, rawReader } from '../../src/store/sqlite/db.js';
import { sqliteLocations } from '../../src/store/sqlite/locations.js';
import { sqliteUsers } from '../../src/store/sqlite/users.js';

const COLUMNS = ['id', 'n', 's', 'z'] as const;

t.test('json rows equal raw rows for integers, text and NULL of every kind', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  db.exec('CREATE TABLE x (id INTEGER PRIMARY KEY, n INTEGER, s TEXT, z TEXT)');
  const texts = [
    '',
    'plain',
    'quote " and backslash \\ and slash /',
    'tab\tnew\nline\rcr',
    '\u0000nul\u0001\u001f',
    '\u2028\u2029 separators',
    'Ünïcödé 名前 José',
    '😀 emoji 𝄞',
    '</script><!--',
    '{"json":[1,2]}',
    ' '.repeat(3),
    'x'.repeat(5_000),
    '1e5',
    'null',
    'true',
  ];
  const ints = [0, -1, 1, 2 ** 31, -(2 ** 31) - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1_000_000_007, null];
  const insert = db.prepare('INSERT INTO x (n, s, z) VALUES (?, ?, ?)');
  for (let i = 0; i < texts.length * ints.length; i++)
    insert.run(ints[i % ints.length], texts[i % texts.length], i % 3 === 0 ? null : texts[(i * 7) % texts.length]);
  const raw = rawReader(db, COLUMNS)('SELECT * FROM x WHERE id > ? ORDER BY id LIMIT ?').all(0, 1_000);
  const json = jsonRowsReader(db, COLUMNS)('SELECT * FROM x WHERE id > ? ORDER BY id LIMIT ?')(0, 1_000);
  t.equal(raw.length, texts.length * ints.length);
  t.strictSame(json, raw, 'same rows, same values, same types');
  t.strictSame(jsonRowsReader(db, COLUMNS)('SELECT * FROM x WHERE id < ?')(0), [], 'no rows: an empty list');
});

t.test('a page of users is the same through the store whatever their names hold', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const now = new Date().toISOString();
  const location = await sqliteLocations(db).create({ name: 'json', timezone: 'UTC' }, now);
  const users = sqliteUsers(db);
  const odd = ['名前', '"quoted"', 'back\\slash', 'line\nbreak', '😀', '\u2028', ''];
  await users.upsertMany(
    location.id,
    odd.map((name, i) => ({
      pin: 2 ** 31 + i,
      fields: {
        first_name: name,
        last_name: i % 2 ? null : name,
        card_no: i % 3 ? String(i) : null,
        password: i % 2 ? 123456 : null,
        is_active: i % 2 === 0,
        start_time: i === 3 ? '2026-01-01T00:00:00Z' : null,
        privilege: 14,
        group: i,
        super_authorize: 1,
      },
    })),
    now,
  );
  const page = await users.list(location.id, {}, { offset: 0, limit: 100 });
  const one = await Promise.all(odd.map((_, i) => users.get(location.id, 2 ** 31 + i)));
  t.strictSame(page.items, one, 'each listed user equals the user read alone (raw row)');
  t.strictSame(
    await users.getMany(
      location.id,
      odd.map((_, i) => 2 ** 31 + i),
    ),
    one,
    'getMany too',
  );
  t.equal(page.items[1]?.first_name, '"quoted"');
  t.equal(page.items[0]?.is_active, true);
  t.equal(page.items[1]?.is_active, false);
});
