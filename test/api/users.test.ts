/**
 * /api/users over real HTTP [SERVICE-SPEC "Endpoints", API-CONTRACT §2, §3, §5 Users]:
 * upsert with patch semantics, every validation rule in one 422, pagination
 * arithmetic, search and filters, read/delete, import and clear with their counts.
 */
import t from 'tap';
import { fakeClock } from '../helpers/app.js';
import {
  ISO_MS_Z,
  PAGE_KEYS,
  USER_KEYS,
  gateway,
  issueAt,
  keysOf,
  locsOf,
  sorted,
  wellFormedIssues,
  type Call,
  type CommandResponse,
  type ErrorBody,
  type Json,
  type Page,
  type UserResponse,
} from './client.js';

const START = '2026-03-01T08:00:00.000Z';

/** Creates users through the import endpoint (one request). */
async function seed(api: Call, users: readonly Json[]): Promise<void> {
  const res = await api<{ processed_count: number; error_count: number }>('POST', '/api/users/import', { body: users });
  if (res.status !== 200 || res.body.error_count !== 0) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
}

const pins = (page: Page<UserResponse>) => page.data.map((u) => u.pin);

t.test('POST /api/users creates (201) with the exact UserResponse field set and types', async (t) => {
  const clock = fakeClock(START);
  const { a } = await gateway(t, { clock });
  const res = await a.api<UserResponse>('POST', '/api/users', {
    body: {
      pin: 1001,
      first_name: 'Ada',
      last_name: 'Lovelace',
      card_no: '0012345',
      password: 4321,
      is_active: true,
      start_time: '2026-01-01',
      end_time: '2026-12-31T18:00:00+02:00',
      privilege: 14,
      group: 5,
      super_authorize: 1,
    },
  });
  t.equal(res.status, 201);
  t.strictSame(keysOf(res.body), sorted(USER_KEYS), 'exactly the UserResponse fields');
  const u = res.body;
  t.type(u.id, 'number');
  t.ok(Number.isInteger(u.id) && u.id > 0, 'id is a positive integer');
  t.strictSame(
    { ...u, id: 0 },
    {
      id: 0,
      location_id: a.id,
      location: { id: a.id, name: 'Default' },
      pin: 1001,
      first_name: 'Ada',
      last_name: 'Lovelace',
      card_no: '0012345',
      password: 4321,
      is_active: true,
      start_time: '2026-01-01',
      end_time: '2026-12-31T16:00:00.000Z',
      privilege: 14,
      group: 5,
      super_authorize: 1,
      areas: [],
      access_levels: [],
      photo: null,
      has_biometric: false,
      biometric_templates: null,
      created_at: START,
      updated_at: null,
      department: null,
      position: null,
    },
    'values as sent; the date stays a date, the datetime with offset becomes UTC Z with ms',
  );
  t.match(u.created_at, ISO_MS_Z);

  // Defaults on create [API-CONTRACT §5 Users].
  const minimal = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 1002, first_name: 'Bo' } });
  t.equal(minimal.status, 201);
  t.match(minimal.body, {
    pin: 1002,
    first_name: 'Bo',
    last_name: null,
    card_no: null,
    password: null,
    is_active: true,
    start_time: null,
    end_time: null,
    privilege: 0,
    group: 0,
    super_authorize: 0,
    has_biometric: false,
    biometric_templates: null,
    updated_at: null,
  });
  t.not(minimal.body.id, u.id, 'ids are unique');
});

t.test('POST /api/users on an existing PIN: 200, patch semantics, updated_at set', async (t) => {
  const clock = fakeClock(START);
  const { a } = await gateway(t, { clock });
  const created = await a.api<UserResponse>('POST', '/api/users', {
    body: { pin: 7, first_name: 'Grace', last_name: 'Hopper', card_no: '99', password: 12, start_time: '2026-01-01T08:00:00Z', group: 3 },
  });
  t.equal(created.status, 201);
  t.equal(created.body.updated_at, null, 'updated_at is null right after creation');

  clock.advance(90_000);
  const updated = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 7, last_name: null, card_no: null, group: 9 } });
  t.equal(updated.status, 200, 'an update is 200');
  t.equal(updated.body.id, created.body.id, 'same record');
  t.equal(updated.body.first_name, 'Grace', 'absent field kept (first_name not needed for an existing PIN)');
  t.equal(updated.body.password, 12, 'absent field kept');
  t.equal(updated.body.start_time, '2026-01-01T08:00:00.000Z', 'absent field kept');
  t.equal(updated.body.last_name, null, 'explicit null clears');
  t.equal(updated.body.card_no, null, 'explicit null clears');
  t.equal(updated.body.group, 9, 'present field replaced');
  t.equal(updated.body.created_at, START, 'created_at unchanged');
  t.equal(updated.body.updated_at, '2026-03-01T08:01:30.000Z', 'updated_at = the time of the update');

  const read = await a.api<UserResponse>('GET', '/api/users/7');
  t.strictSame(read.body, updated.body, 'GET returns what the update returned');

  // The window order is checked against the stored start_time too.
  const before = await a.api<ErrorBody>('POST', '/api/users', { body: { pin: 7, end_time: '2025-12-31' } });
  t.equal(before.status, 422);
  t.strictSame(locsOf(before.body), ['body.end_time'], 'end before the stored start');
});

t.test('first_name is required for a new PIN', async (t) => {
  const { a } = await gateway(t);
  for (const body of [{ pin: 2000 }, { pin: 2000, first_name: null }, { pin: 2000, first_name: '   ' }, { pin: 2000, last_name: 'X' }]) {
    const res = await a.api<ErrorBody>('POST', '/api/users', { body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.equal(res.body.code, 'VALIDATION_FAILED');
    t.strictSame(locsOf(res.body), ['body.first_name'], `${JSON.stringify(body)}: loc body.first_name`);
    t.ok(wellFormedIssues(res.body, 'body'));
  }
  t.equal((await a.api('GET', '/api/users/2000')).status, 404, 'nothing was created');
});

t.test('every validation problem of a body is listed at once in one 422', async (t) => {
  const { a } = await gateway(t);
  const res = await a.api<ErrorBody>('POST', '/api/users', {
    body: {
      pin: 0,
      first_name: 'Tab\there',
      last_name: 'also\tTAB',
      card_no: '12ab',
      password: '1234',
      is_active: 'yes',
      start_time: '2026/01/01',
      end_time: 'tomorrow',
      privilege: 3,
      group: 100,
      super_authorize: 2,
    },
  });
  t.equal(res.status, 422);
  t.equal(res.body.code, 'VALIDATION_FAILED');
  t.ok(wellFormedIssues(res.body, 'body'), 'every issue is {loc, msg, type} under body');
  t.strictSame(
    locsOf(res.body),
    sorted([
      'body.pin',
      'body.first_name',
      'body.last_name',
      'body.card_no',
      'body.password',
      'body.is_active',
      'body.start_time',
      'body.end_time',
      'body.privilege',
      'body.group',
      'body.super_authorize',
    ]),
    'one issue per field',
  );
  t.match(issueAt(res.body, 'body.pin'), { msg: 'must be between 1 and 99999999', type: 'range' });
  t.match(issueAt(res.body, 'body.group'), { msg: 'must be between 0 and 99', type: 'range' });
  t.match(issueAt(res.body, 'body.privilege'), { msg: 'must be one of 0, 2, 6, 14', type: 'enum' });
  t.match(issueAt(res.body, 'body.super_authorize'), { msg: 'must be one of 0, 1', type: 'enum' });
  t.match(issueAt(res.body, 'body.password'), { type: 'type_error' });
  t.match(issueAt(res.body, 'body.is_active'), { msg: 'must be a boolean', type: 'type_error' });

  // One rule at a time, each with its loc.
  const cases: [body: Json, loc: string][] = [
    [{ pin: 100_000_000, first_name: 'A' }, 'body.pin'],
    [{ pin: -5, first_name: 'A' }, 'body.pin'],
    [{ pin: '12', first_name: 'A' }, 'body.pin'],
    [{ pin: 1.5, first_name: 'A' }, 'body.pin'],
    [{ first_name: 'A' }, 'body.pin'],
    [{ pin: 1, first_name: 'A', privilege: 3 }, 'body.privilege'],
    [{ pin: 1, first_name: 'A', group: 100 }, 'body.group'],
    [{ pin: 1, first_name: 'A', group: -1 }, 'body.group'],
    [{ pin: 1, first_name: 'A', super_authorize: 2 }, 'body.super_authorize'],
    [{ pin: 1, first_name: 'A', password: 'secret' }, 'body.password'],
    [{ pin: 1, first_name: 'A', is_active: 'yes' }, 'body.is_active'],
    [{ pin: 1, first_name: 'A', start_time: '01/02/2026' }, 'body.start_time'],
    [{ pin: 1, first_name: 'A', start_time: '2026-02-30' }, 'body.start_time'],
    [{ pin: 1, first_name: 'A', end_time: '2026-13-01' }, 'body.end_time'],
    [{ pin: 1, first_name: 'A', start_time: '2026-05-02', end_time: '2026-05-01' }, 'body.end_time'],
    [{ pin: 1, first_name: 'A', start_time: '2026-05-01T12:00:00Z', end_time: '2026-05-01T11:59:59Z' }, 'body.end_time'],
    [{ pin: 1, first_name: 'A', card_no: '12-34' }, 'body.card_no'],
    [{ pin: 1, first_name: 'A\tB' }, 'body.first_name'],
    [{ pin: 1, first_name: 'A', last_name: 'B\nC' }, 'body.last_name'],
    [{ pin: 1, first_name: 'x'.repeat(101) }, 'body.first_name'],
  ];
  for (const [body, loc] of cases) {
    const r = await a.api<ErrorBody>('POST', '/api/users', { body });
    t.equal(r.status, 422, `${JSON.stringify(body).slice(0, 80)}: 422`);
    t.strictSame(locsOf(r.body), [loc], `${JSON.stringify(body).slice(0, 80)}: ${loc}`);
  }
  t.match(issueAt((await a.api('POST', '/api/users', { body: { first_name: 'A' } })).body, 'body.pin'), {
    msg: 'field required',
    type: 'missing',
  });

  // Schema problems and the new-user rule come together too.
  const both = await a.api<ErrorBody>('POST', '/api/users', { body: { pin: 3000, privilege: 3, start_time: '2026-02-30' } });
  t.equal(both.status, 422);
  t.strictSame(
    locsOf(both.body),
    ['body.first_name', 'body.privilege', 'body.start_time'],
    'schema, date and first_name issues in one answer',
  );

  // A window that ends on its start day is fine: a date end means the end of that day.
  const sameDay = await a.api<UserResponse>('POST', '/api/users', {
    body: { pin: 1, first_name: 'A', start_time: '2026-05-01T12:00:00Z', end_time: '2026-05-01' },
  });
  t.equal(sameDay.status, 201);
  t.equal((await a.api<Page<UserResponse>>('GET', '/api/users')).body.total, 1, 'only the valid request created a user');
});

t.test('malformed or wrongly shaped bodies: 400', async (t) => {
  const { a } = await gateway(t);
  const cases: [label: string, raw: string][] = [
    ['malformed JSON', '{"pin": 1, "first_name": '],
    ['not JSON at all', 'pin=1&first_name=A'],
    ['JSON array', '[{"pin": 1, "first_name": "A"}]'],
    ['JSON string', '"hello"'],
    ['JSON number', '42'],
    ['JSON null', 'null'],
    ['empty body', ''],
  ];
  for (const [label, raw] of cases) {
    const res = await a.api<ErrorBody>('POST', '/api/users', { raw });
    t.equal(res.status, 400, `${label}: 400`);
    t.equal(res.body.code, 'BAD_REQUEST', `${label}: BAD_REQUEST`);
    t.type(res.body.detail, 'string');
  }
});

t.test('start_time / end_time: a date stays a date, a datetime becomes UTC Z with ms', async (t) => {
  const { a } = await gateway(t);
  const cases: [sent: string, stored: string][] = [
    ['2026-04-05', '2026-04-05'],
    ['2026-04-05T10:20:30Z', '2026-04-05T10:20:30.000Z'],
    ['2026-04-05T10:20:30.5+02:00', '2026-04-05T08:20:30.500Z'],
    ['2026-04-05T01:00:00-0300', '2026-04-05T04:00:00.000Z'],
    ['2026-04-05T10:20', '2026-04-05T10:20:00.000Z'],
    ['2026-04-05 10:20:30', '2026-04-05T10:20:30.000Z'],
    ['2024-02-29', '2024-02-29'],
  ];
  let pin = 10;
  for (const [sent, stored] of cases) {
    const res = await a.api<UserResponse>('POST', '/api/users', {
      body: { pin: ++pin, first_name: 'T', start_time: sent, end_time: sent },
    });
    t.equal(res.status, 201, `${sent}: accepted`);
    t.equal(res.body.start_time, stored, `${sent} → ${stored}`);
    t.equal(res.body.end_time, stored, `${sent} → ${stored} (end_time)`);
  }
  for (const bad of [
    '2025-02-29',
    '2026-04-31',
    '2026-04-05T25:00:00Z',
    '2026-04-05T10:61:00Z',
    '2026-02-30T10:00:00Z',
    '2026-04-31 08:00',
  ]) {
    const res = await a.api<ErrorBody>('POST', '/api/users', { body: { pin: 99, first_name: 'T', start_time: bad } });
    t.equal(res.status, 422, `${bad}: 422`);
    t.strictSame(locsOf(res.body), ['body.start_time'], `${bad}: loc`);
  }
});

t.test('GET /api/users: pagination arithmetic on edge sizes', async (t) => {
  const { a } = await gateway(t);
  const empty = await a.api<Page<UserResponse>>('GET', '/api/users');
  t.equal(empty.status, 200);
  t.strictSame(keysOf(empty.body), sorted(PAGE_KEYS));
  t.strictSame(empty.body, { data: [], total: 0, page: 1, limit: 15, total_pages: 0, has_next: false, has_prev: false }, 'empty location');

  await seed(
    a.api,
    Array.from({ length: 31 }, (_, i) => ({ pin: 31 - i, first_name: `User ${31 - i}` })),
  );
  const page = async (query: string) => (await a.api<Page<UserResponse>>('GET', `/api/users${query}`)).body;

  const p1 = await page('');
  t.match(p1, { total: 31, page: 1, limit: 15, total_pages: 3, has_next: true, has_prev: false }, 'defaults: page 1, limit 15');
  t.strictSame(
    pins(p1),
    Array.from({ length: 15 }, (_, i) => i + 1),
    'ordered by pin ascending',
  );
  const p2 = await page('?limit=15&page=2');
  t.match(p2, { total: 31, page: 2, total_pages: 3, has_next: true, has_prev: true });
  t.strictSame(
    pins(p2),
    Array.from({ length: 15 }, (_, i) => i + 16),
  );
  const p3 = await page('?limit=15&page=3');
  t.match(p3, { total: 31, page: 3, total_pages: 3, has_next: false, has_prev: true });
  t.strictSame(pins(p3), [31], 'the last page holds the one remaining user');
  const p4 = await page('?limit=15&page=4');
  t.strictSame(
    p4,
    { data: [], total: 31, page: 4, limit: 15, total_pages: 3, has_next: false, has_prev: true },
    'past the end: empty data',
  );

  t.match(await page('?limit=100'), { total: 31, limit: 100, total_pages: 1, has_next: false, has_prev: false });
  t.equal((await page('?limit=100')).data.length, 31);
  t.match(await page('?limit=31'), { total_pages: 1, has_next: false });
  t.match(await page('?limit=30'), { total_pages: 2, has_next: true });
  t.match(await page('?limit=30&page=2'), { total_pages: 2, has_next: false, has_prev: true });
  t.strictSame(pins(await page('?limit=30&page=2')), [31]);
  t.match(await page('?limit=1&page=31'), { total_pages: 31, has_next: false, has_prev: true });
  t.strictSame(pins(await page('?limit=1&page=31')), [31]);
  t.match(await page('?limit=1'), { total_pages: 31, has_next: true, has_prev: false });
  t.strictSame(
    await page('?limit=100&page=1000000000'),
    { data: [], total: 31, page: 1_000_000_000, limit: 100, total_pages: 1, has_next: false, has_prev: true },
    'the highest page',
  );

  const bad: [query: string, loc: string][] = [
    ['?limit=0', 'query.limit'],
    ['?limit=101', 'query.limit'],
    ['?limit=-1', 'query.limit'],
    ['?limit=1.5', 'query.limit'],
    ['?limit=ten', 'query.limit'],
    ['?page=0', 'query.page'],
    ['?page=x', 'query.page'],
    ['?page=', 'query.page'],
    ['?page=1000000001', 'query.page'],
    ['?page=100000000000000000000', 'query.page'],
    ['?page=614891469123651721', 'query.page'],
  ];
  for (const [query, loc] of bad) {
    const res = await a.api<ErrorBody>('GET', `/api/users${query}`);
    t.equal(res.status, 422, `${query}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${query}: ${loc}`);
    t.ok(wellFormedIssues(res.body, 'query'));
  }
  const both = await a.api<ErrorBody>('GET', '/api/users?page=0&limit=0&privilege=1&is_active=maybe');
  t.strictSame(locsOf(both.body), ['query.is_active', 'query.limit', 'query.page', 'query.privilege'], 'every query problem at once');
});

t.test('GET /api/users: pin order is numeric, search and filters', async (t) => {
  const { a } = await gateway(t);
  await seed(a.api, [
    { pin: 100, first_name: 'Alice', last_name: 'Smith', privilege: 14 },
    { pin: 9, first_name: 'Bob', last_name: 'ALISON' },
    { pin: 3303, first_name: 'Carol', last_name: 'Jones', privilege: 2, is_active: false },
    { pin: 10, first_name: '100%', last_name: 'x_y' },
    { pin: 5505, first_name: '100a', last_name: 'xzy', privilege: 14, is_active: false },
    { pin: 77, first_name: 'Dan', last_name: null },
  ]);
  const list = async (query: string) => {
    const res = await a.api<Page<UserResponse>>('GET', `/api/users${query}`);
    t.equal(res.status, 200, `${query}: 200`);
    return pins(res.body);
  };
  t.strictSame(await list(''), [9, 10, 77, 100, 3303, 5505], 'numeric pin order, not text order');

  t.strictSame(await list('?search=ali'), [9, 100], 'first or last name, case-insensitive substring');
  t.strictSame(await list('?search=ALICE'), [100]);
  t.strictSame(await list('?search=smi'), [100], 'last name');
  t.strictSame(await list('?search=330'), [3303], 'pin substring');
  t.strictSame(await list('?search=0'), [10, 100, 3303, 5505], 'pin substring or names containing 0');
  t.strictSame(await list('?search=%25'), [10], '% is a literal');
  t.strictSame(await list('?search=0%25'), [10], '% is a literal after text');
  t.strictSame(await list('?search=_'), [10], '_ is a literal');
  t.strictSame(await list('?search=x_y'), [10]);
  t.strictSame(await list('?search=%5C'), [], 'a backslash is a literal and matches nothing');
  t.strictSame(await list('?search=nobody'), []);
  t.strictSame(await list('?search='), [9, 10, 77, 100, 3303, 5505], 'empty search = no filter');
  const counted = await a.api<Page<UserResponse>>('GET', '/api/users?search=ali&limit=1');
  t.match(counted.body, { total: 2, total_pages: 2, has_next: true }, 'total counts after filters');

  t.strictSame(await list('?privilege=14'), [100, 5505]);
  t.strictSame(await list('?privilege=2'), [3303]);
  t.strictSame(await list('?privilege=6'), []);
  t.strictSame(await list('?privilege=0'), [9, 10, 77]);
  t.strictSame(await list('?is_active=true'), [9, 10, 77, 100]);
  t.strictSame(await list('?is_active=1'), [9, 10, 77, 100]);
  t.strictSame(await list('?is_active=false'), [3303, 5505]);
  t.strictSame(await list('?is_active=0'), [3303, 5505]);
  t.strictSame(await list('?is_active=false&privilege=14&search=100'), [5505], 'filters combine');

  for (const [query, loc] of [
    ['?is_active=maybe', 'query.is_active'],
    ['?privilege=3', 'query.privilege'],
    ['?privilege=admin', 'query.privilege'],
    ['?include=other', 'query.include'],
  ]) {
    const res = await a.api<ErrorBody>('GET', `/api/users${query}`);
    t.equal(res.status, 422, `${query}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${query}: ${loc}`);
  }
  const long = await a.api<ErrorBody>('GET', `/api/users?search=${'a'.repeat(101)}`);
  t.equal(long.status, 422, 'search longer than 100 characters');
});

t.test(
  'search is case-insensitive beyond ASCII',
  { todo: 'store: SQLite lower() folds ASCII only (src/store/sqlite/users.ts)' },
  async (t) => {
    const { a } = await gateway(t);
    await seed(a.api, [{ pin: 1, first_name: 'Émile', last_name: 'Çelik' }]);
    const res = await a.api<Page<UserResponse>>('GET', `/api/users?search=${encodeURIComponent('émile')}`);
    t.strictSame(pins(res.body), [1]);
  },
);

t.test('include=biometrics: arrays (possibly empty), never template bytes', async (t) => {
  const { a, started } = await gateway(t);
  await seed(a.api, [
    { pin: 1, first_name: 'With' },
    { pin: 2, first_name: 'Without' },
  ]);
  await started.app.store.templates.upsert(
    a.id,
    {
      user_pin: 1,
      bio_type: 'fingerprint',
      type_index: 1,
      finger_id: 6,
      template_index: 0,
      valid: 1,
      duress: false,
      major_ver: 10,
      minor_ver: 0,
      format: 0,
      source_format: 'legacy',
      data: 'U0VDUkVULVRFTVBMQVRF',
      size: 20,
      source_sn: null,
    },
    START,
  );

  const plain = await a.api<Page<UserResponse>>('GET', '/api/users');
  t.strictSame(
    plain.body.data.map((u) => [u.pin, u.has_biometric, u.biometric_templates]),
    [
      [1, true, null],
      [2, false, null],
    ],
    'null without include',
  );

  const full = await a.api<Page<UserResponse>>('GET', '/api/users?include=biometrics');
  t.equal(full.status, 200);
  const [withT, withoutT] = full.body.data;
  t.strictSame(withoutT?.biometric_templates, [], 'an empty array for a user without templates');
  t.equal(withoutT?.has_biometric, false);
  t.equal(withT?.has_biometric, true);
  t.equal(withT?.biometric_templates?.length, 1);
  const tpl = withT?.biometric_templates?.[0] ?? {};
  t.match(tpl, { id: Number, user_pin: 1, bio_type: 'fingerprint', finger_id: 6, valid: 1, created_at: START });
  t.notOk('data' in tpl, 'no template bytes');
  t.notOk(JSON.stringify(full.body).includes('U0VDUkVULVRFTVBMQVRF'), 'the template text appears nowhere');

  const one = await a.api<UserResponse>('GET', '/api/users/1?include=biometrics');
  t.equal(one.body.biometric_templates?.length, 1);
  const oneEmpty = await a.api<UserResponse>('GET', '/api/users/2?include=biometrics');
  t.strictSame(oneEmpty.body.biometric_templates, []);
  t.equal((await a.api<UserResponse>('GET', '/api/users/1')).body.biometric_templates, null);
  const bad = await a.api<ErrorBody>('GET', '/api/users/1?include=photos');
  t.equal(bad.status, 422);
  t.strictSame(locsOf(bad.body), ['query.include']);
});

t.test('GET /api/users/{pin}: 200, 404 USER_NOT_FOUND, 422 for a bad pin', async (t) => {
  const { a } = await gateway(t);
  const created = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 42, first_name: 'Zed' } });
  const ok = await a.api<UserResponse>('GET', '/api/users/42');
  t.equal(ok.status, 200);
  t.strictSame(ok.body, created.body);
  t.strictSame(keysOf(ok.body), sorted(USER_KEYS));

  const missing = await a.api<ErrorBody>('GET', '/api/users/43');
  t.equal(missing.status, 404);
  t.strictSame(missing.body, { detail: 'User 43 not found', code: 'USER_NOT_FOUND' });

  for (const pin of ['abc', '0', '-1', '100000000', '1.5', '%20']) {
    const res = await a.api<ErrorBody>('GET', `/api/users/${pin}`);
    t.equal(res.status, 422, `pin ${pin}: 422`);
    t.strictSame(locsOf(res.body), ['path.pin'], `pin ${pin}: loc path.pin`);
    t.ok(wellFormedIssues(res.body, 'path'));
  }
});

t.test('DELETE /api/users/{pin}: 200 {}, then 404', async (t) => {
  const { a, started } = await gateway(t);
  await seed(a.api, [
    { pin: 5, first_name: 'Gone' },
    { pin: 6, first_name: 'Stays' },
  ]);
  const del = await a.api('DELETE', '/api/users/5');
  t.equal(del.status, 200);
  t.strictSame(del.body, {});
  t.equal((await a.api<ErrorBody>('GET', '/api/users/5')).body.code, 'USER_NOT_FOUND', 'GET after delete: 404');
  // A retry answers 200 while the delete still owes something (src/sync/README.md), its user.changed
  // event included, which is stored after the answer: once that is settled, 404.
  await started.app.outbox.idle();
  const again = await a.api<ErrorBody>('DELETE', '/api/users/5');
  t.equal(again.status, 404);
  t.strictSame(again.body, { detail: 'User 5 not found', code: 'USER_NOT_FOUND' });
  t.equal((await a.api('GET', '/api/users/6')).status, 200, 'other users untouched');
  t.equal((await a.api('DELETE', '/api/users/abc')).status, 422);
  const me = await a.api<{ users_count: number }>('GET', '/api/me');
  t.equal(me.body.users_count, 1);
});

t.test("DELETE /api/users/{pin} queues delete commands for the location's devices", async (t) => {
  const { a, started } = await gateway(t);
  await seed(a.api, [{ pin: 5, first_name: 'Gone' }]);
  for (const sn of ['DEV1', 'DEV2']) t.equal((await a.api('POST', '/api/devices', { body: { sn } })).status, 201);
  t.equal((await a.api('DELETE', '/api/users/5')).status, 200);
  const cmds = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users');
  t.equal(cmds.body.total, 2, 'one op per device (the pending upsert was replaced)');
  t.strictSame(cmds.body.data.map((c) => [c.sn, c.params]).sort(), [
    ['DEV1', { op: 'user.delete', pin: 5 }],
    ['DEV2', { op: 'user.delete', pin: 5 }],
  ]);

  // Creating syncs the user to every device; deactivating by upsert revokes it again.
  t.equal((await a.api('POST', '/api/users', { body: { pin: 6, first_name: 'New' } })).status, 201);
  const added = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&limit=100');
  t.strictSame(
    added.body.data
      .filter((c) => c.params?.['pin'] === 6)
      .map((c) => [c.sn, c.params?.['op']])
      .sort(),
    [
      ['DEV1', 'user.upsert'],
      ['DEV2', 'user.upsert'],
    ],
  );
  t.equal((await a.api('POST', '/api/users', { body: { pin: 6, is_active: false } })).status, 200);
  // The creation's entry was marked again by the deactivation, so its processing (after the creation answered) queues
  // PIN 6 once more from what it reads; on MongoDB that read may come between the deactivation's mark and its change,
  // and the op it writes is put right by its read after queueing (src/sync/outbox.ts). What is owed once that settles:
  await started.app.outbox.idle();
  const revoked = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&limit=100');
  t.equal(revoked.body.total, 4, 'the pending upserts were replaced, not stacked');
  t.strictSame(
    revoked.body.data
      .filter((c) => c.params?.['pin'] === 6)
      .map((c) => [c.sn, c.params?.['op']])
      .sort(),
    [
      ['DEV1', 'user.delete'],
      ['DEV2', 'user.delete'],
    ],
  );
});

t.test('POST /api/users/import: per-item results, exact errors', async (t) => {
  const { a } = await gateway(t);
  await seed(a.api, [{ pin: 1001, first_name: 'Old', last_name: 'Name', card_no: '55' }]);
  const items: unknown[] = [
    { pin: '7001', first_name: 'Ann' },
    { pin: 7002, first_name: 'Bad', privilege: 3 },
    { pin: 'abc', first_name: 'C' },
    { pin: '7004' },
    { pin: ' 7005 ', first_name: 'Eve', last_name: 'Lee', is_active: false },
    'junk',
    { pin: '0', first_name: 'Zero' },
    { pin: '1001', last_name: 'New' },
    { pin: 7009, first_name: 'Tab\tbed' },
    { first_name: 'No pin' },
  ];
  const res = await a.api<{
    message: string;
    processed_count: number;
    error_count: number;
    processed_users: UserResponse[];
    errors: Json[];
  }>('POST', '/api/users/import', { body: items });
  t.equal(res.status, 200);
  t.strictSame(keysOf(res.body), ['error_count', 'errors', 'message', 'processed_count', 'processed_users']);
  t.equal(res.body.processed_count, 3);
  t.equal(res.body.error_count, 7);
  t.type(res.body.message, 'string');
  t.strictSame(
    res.body.processed_users.map((u) => u.pin),
    [7001, 7005, 1001],
    'processed in input order',
  );
  for (const u of res.body.processed_users) t.strictSame(keysOf(u), sorted(USER_KEYS));
  t.match(res.body.processed_users[1], { pin: 7005, first_name: 'Eve', last_name: 'Lee', is_active: false });
  t.match(res.body.processed_users[2], { pin: 1001, first_name: 'Old', last_name: 'New', card_no: '55' }, 'an update keeps absent fields');
  t.strictSame(
    res.body.errors,
    [
      {
        user_data: { pin: 7002, first_name: 'Bad', privilege: 3 },
        error: 'privilege: must be one of 0, 2, 6, 14',
        code: 'VALIDATION_FAILED',
      },
      {
        user_data: { pin: 'abc', first_name: 'C' },
        error: 'pin: has an invalid value (expected: an integer from 1 to 99999999, or a string of up to 8 digits)',
        code: 'VALIDATION_FAILED',
      },
      { user_data: { pin: '7004' }, error: 'first_name: field required for a new user', code: 'VALIDATION_FAILED' },
      { user_data: 'junk', error: 'item: must be an object', code: 'VALIDATION_FAILED' },
      { user_data: { pin: '0', first_name: 'Zero' }, error: 'pin: must be between 1 and 99999999', code: 'VALIDATION_FAILED' },
      {
        user_data: { pin: 7009, first_name: 'Tab\tbed' },
        error: 'first_name: has an invalid format (expected: First name; no tabs or line breaks)',
        code: 'VALIDATION_FAILED',
      },
      { user_data: { first_name: 'No pin' }, error: 'pin: field required', code: 'VALIDATION_FAILED' },
    ],
    'errors in input order, each with the item as sent',
  );

  const list = await a.api<Page<UserResponse>>('GET', '/api/users');
  t.strictSame(pins(list.body), [1001, 7001, 7005]);

  const again = await a.api<{ processed_count: number; error_count: number }>('POST', '/api/users/import', {
    body: [
      { pin: 7001, first_name: 'Ann' },
      { pin: '7001', last_name: 'Twice' },
    ],
  });
  t.match(again.body, { processed_count: 2, error_count: 0 }, 'a PIN may repeat; the second item updates the first');
  t.match((await a.api<UserResponse>('GET', '/api/users/7001')).body, { first_name: 'Ann', last_name: 'Twice' });

  const window = await a.api<{ processed_count: number; errors: Json[] }>('POST', '/api/users/import', {
    body: [
      { pin: 8001, first_name: 'W', start_time: '2026-05-02' },
      { pin: '8001', end_time: '2026-05-01' },
      { pin: 8001, end_time: '2026-05-03' },
    ],
  });
  t.equal(window.body.processed_count, 2);
  t.strictSame(
    window.body.errors,
    [{ user_data: { pin: '8001', end_time: '2026-05-01' }, error: 'end_time: must not be before start_time', code: 'VALIDATION_FAILED' }],
    'a later item of the batch is checked against the window an earlier one set',
  );
  t.match((await a.api<UserResponse>('GET', '/api/users/8001')).body, { start_time: '2026-05-02', end_time: '2026-05-03' });

  const empty = await a.api('POST', '/api/users/import', { body: [] });
  t.match(empty, { status: 200, body: { processed_count: 0, error_count: 0, processed_users: [], errors: [] } });
});

t.test('POST /api/users/import: bounds and top-level shape', async (t) => {
  const { a } = await gateway(t);
  const tooMany = Array.from({ length: 10_001 }, (_, i) => ({ pin: i + 1, first_name: 'N' }));
  const big = await a.api<ErrorBody>('POST', '/api/users/import', { body: tooMany, timeoutMs: 60_000 });
  t.equal(big.status, 413);
  t.strictSame(big.body, { detail: 'At most 10000 users per import; got 10001', code: 'PAYLOAD_TOO_LARGE' });
  t.equal((await a.api<Page<UserResponse>>('GET', '/api/users')).body.total, 0, 'nothing imported');

  for (const raw of ['{"pin": 1, "first_name": "A"}', '{"users": []}', '"x"', 'null', '[{"pin": 1,']) {
    const res = await a.api<ErrorBody>('POST', '/api/users/import', { raw });
    t.equal(res.status, 400, `${raw}: 400`);
    t.equal(res.body.code, 'BAD_REQUEST');
  }

  // What is checked is the bound, not the speed: mongo-java-server (the MongoDB leg in CI) needs about
  // 9 s for 10,000 new users on an idle machine, more under the suite's load (it failed at 10 s).
  const max = await a.api<{ processed_count: number; error_count: number }>('POST', '/api/users/import', {
    body: tooMany.slice(0, 10_000),
    timeoutMs: 60_000,
  });
  t.equal(max.status, 200, '10,000 items are accepted');
  t.match(max.body, { processed_count: 10_000, error_count: 0 });
  t.equal((await a.api<Page<UserResponse>>('GET', '/api/users?limit=1')).body.total, 10_000);
});

t.test('DELETE /api/users/clear: counts and soft delete', async (t) => {
  const { a } = await gateway(t);
  await seed(a.api, [
    { pin: 1, first_name: 'A' },
    { pin: 2, first_name: 'B' },
    { pin: 3, first_name: 'C' },
    { pin: 4, first_name: 'D', is_active: false },
    { pin: 5, first_name: 'E' },
  ]);
  const some = await a.api('DELETE', '/api/users/clear', { body: { pins: [1, 2, 4, 999] } });
  t.equal(some.status, 200);
  t.strictSame(keysOf(some.body), ['commands_created', 'devices_affected', 'message', 'users_deleted']);
  t.match(some.body, { users_deleted: 2, devices_affected: 0, commands_created: 0, message: String }, 'only previously active users count');

  const user1 = await a.api<UserResponse>('GET', '/api/users/1');
  t.equal(user1.status, 200, 'a cleared user stays readable');
  t.equal(user1.body.is_active, false);
  t.equal((await a.api<UserResponse>('GET', '/api/users/3')).body.is_active, true, 'not listed: untouched');

  t.match(
    (await a.api('DELETE', '/api/users/clear', { body: { pins: [1, 2] } })).body,
    { users_deleted: 0 },
    'clearing again counts nothing',
  );
  t.match((await a.api('DELETE', '/api/users/clear', { body: { pins: [] } })).body, { users_deleted: 0 }, 'an empty list clears nobody');
  t.match(
    (await a.api('DELETE', '/api/users/clear', { body: { pins: null } })).body,
    { users_deleted: 2 },
    'null = all (3 and 5 were active)',
  );
  t.match((await a.api('DELETE', '/api/users/clear')).body, { users_deleted: 0 }, 'no body = all; none active any more');

  const list = await a.api<Page<UserResponse>>('GET', '/api/users?is_active=false');
  t.equal(list.body.total, 5, 'all five remain, inactive');

  await seed(a.api, [{ pin: 6, first_name: 'F' }]);
  t.match((await a.api('DELETE', '/api/users/clear', { body: {} })).body, { users_deleted: 1 }, 'an empty object = all');

  const bad: [raw: string, status: number][] = [
    ['{"pins": [0]}', 422],
    ['{"pins": "1,2"}', 422],
    ['{"pins": [1.5]}', 422],
    ['[1, 2]', 400],
    ['{"pins": [1', 400],
  ];
  for (const [raw, status] of bad) {
    const res = await a.api<ErrorBody>('DELETE', '/api/users/clear', { raw });
    t.equal(res.status, status, `${raw}: ${status}`);
  }
  t.strictSame(locsOf((await a.api('DELETE', '/api/users/clear', { raw: '{"pins": [1, 0]}' })).body), ['body.pins.1']);
});

t.test('DELETE /api/users/clear: devices_affected and commands_created', async (t) => {
  const { a } = await gateway(t);
  // One by one, not by import: an import's fan-out runs in the background and could reach a device
  // assigned just after it (its delete of the inactive user 4 would be a seventh record).
  for (const body of [
    { pin: 1, first_name: 'A' },
    { pin: 2, first_name: 'B' },
    { pin: 3, first_name: 'C' },
    { pin: 4, first_name: 'D', is_active: false },
  ])
    t.equal((await a.api('POST', '/api/users', { body })).status, 201);
  for (const sn of ['CLR-1', 'CLR-2']) t.equal((await a.api('POST', '/api/devices', { body: { sn } })).status, 201);

  const cleared = await a.api('DELETE', '/api/users/clear');
  t.equal(cleared.status, 200);
  t.match(cleared.body, { users_deleted: 3, devices_affected: 2, commands_created: 6 });

  const cmds = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&limit=100');
  t.equal(cmds.body.total, 6, 'six sync-users records: 3 users × 2 devices');
  t.strictSame(cmds.body.data.map((c) => `${c.sn}:${String(c.params?.['op'])}:${String(c.params?.['pin'])}`).sort(), [
    'CLR-1:user.delete:1',
    'CLR-1:user.delete:2',
    'CLR-1:user.delete:3',
    'CLR-2:user.delete:1',
    'CLR-2:user.delete:2',
    'CLR-2:user.delete:3',
  ]);
  for (const c of cmds.body.data) t.match(c, { command: 'sync-users', status: 'pending', priority: 0, location_id: a.id });

  t.match((await a.api('DELETE', '/api/users/clear', { body: { pins: [1] } })).body, {
    users_deleted: 0,
    devices_affected: 2,
    commands_created: 0,
  });
});
