/**
 * A user's department and position over real HTTP: shown in the UserResponse, cleared by null, bounded, their names
 * kept as the location's rows (OrgNamesPort), and never a reason to sync a terminal (they are BioGate's alone).
 */
import t from 'tap';
import { gateway, issueAt, type Call, type CommandResponse, type ErrorBody, type Page, type UserResponse } from '../api/client.js';

/** The pending sync ops of the location for this PIN, as [sn, op] sorted. */
async function opsFor(api: Call, pin: number): Promise<string[][]> {
  const res = await api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&limit=100');
  return res.body.data
    .filter((c) => c.params?.['pin'] === pin && c.status === 'pending')
    .map((c) => [String(c.sn), String(c.params?.['op'])])
    .sort();
}

t.test('POST /api/users: department and position shown, trimmed, kept, cleared with null', async (t) => {
  const { a, started } = await gateway(t);
  const made = await a.api<UserResponse>('POST', '/api/users', {
    body: { pin: 7, first_name: 'Ada', department: '  Research ', position: 'Analyst' },
  });
  t.equal(made.status, 201);
  t.match(made.body, { pin: 7, department: 'Research', position: 'Analyst' }, 'trimmed');
  const kept = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 7, last_name: 'Lovelace' } });
  t.match(kept.body, { department: 'Research', position: 'Analyst' }, 'left out: kept');
  const cleared = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 7, department: null } });
  t.equal(cleared.status, 200);
  t.match(cleared.body, { department: null, position: 'Analyst' }, 'null clears');
  t.match((await a.api<UserResponse>('GET', '/api/users/7')).body, { department: null, position: 'Analyst' });

  const store = started.app.store;
  const names = async (kind: 'department' | 'position') =>
    (await store.orgNames.list(a.id, kind, {}, { offset: 0, limit: 10 })).items.map((r) => [r.code, r.name]);
  t.same(await names('department'), [['Research', 'Research']], 'the name has its row (code = name)');
  t.same(await names('position'), [['Analyst', 'Analyst']]);

  const imported = await a.api<{ processed_count: number; error_count: number }>('POST', '/api/users/import', {
    body: [
      { pin: 8, first_name: 'Bo', department: 'Research' },
      { pin: 9, first_name: 'Cy', department: 'Sales', position: 'Clerk' },
    ],
  });
  t.match(imported.body, { processed_count: 2, error_count: 0 });
  t.same(
    await names('department'),
    [
      ['Research', 'Research'],
      ['Sales', 'Sales'],
    ],
    'an import makes the rows of its new names, once',
  );
  t.same(await names('position'), [
    ['Analyst', 'Analyst'],
    ['Clerk', 'Clerk'],
  ]);
});

t.test('POST /api/users: a department over 100 characters, blank or with a line break is a 422', async (t) => {
  const { a } = await gateway(t);
  const long = await a.api<ErrorBody>('POST', '/api/users', { body: { pin: 7, first_name: 'Ada', department: 'x'.repeat(101) } });
  t.equal(long.status, 422);
  t.ok(issueAt(long.body, 'body.department'), 'the issue names the field');
  t.equal(
    (await a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Ada', department: 'x'.repeat(100) } })).status,
    201,
    '100 is fine',
  );
  for (const bad of ['', '   ', 'a\nb', 'a\tb']) {
    const res = await a.api<ErrorBody>('POST', '/api/users', { body: { pin: 7, position: bad } });
    t.equal(res.status, 422, JSON.stringify(bad));
  }
  t.equal((await a.api<UserResponse>('GET', '/api/users/7')).body.position, null, 'nothing stored');
  const items = await a.api<{ error_count: number; errors: { code: string }[] }>('POST', '/api/users/import', {
    body: [{ pin: 8, first_name: 'Bo', position: 'y'.repeat(101) }],
  });
  t.match(items.body, { error_count: 1, errors: [{ code: 'VALIDATION_FAILED' }] }, 'an import item too');
});

t.test('a change of department or position alone queues no sync line to the assigned terminals', async (t) => {
  const { a, started } = await gateway(t);
  for (const sn of ['DEV1', 'DEV2']) t.equal((await a.api('POST', '/api/devices', { body: { sn } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Ann', department: 'Sales' } })).status, 201);
  const created = await opsFor(a.api, 5);
  t.same(
    created,
    [
      ['DEV1', 'user.upsert'],
      ['DEV2', 'user.upsert'],
    ],
    'a new user is sent to each terminal',
  );
  // Settled (out of `pending`), so that a sync queued again would be a new op, not the pending one refreshed in place.
  const before = (await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&limit=100')).body;
  for (const c of before.data) await started.app.store.commands.failIfPending(c.id, 'settled by the test', new Date().toISOString());

  const announced: { pins: readonly number[]; change: string }[] = [];
  const off = started.app.bus.on('user.changed', (e) => void announced.push({ pins: e.pins, change: e.change }));
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, department: 'Ops' } })).status, 200);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Ann', position: 'Lead', department: null } })).status, 200);
  t.equal((await a.api('POST', '/api/users/import', { body: [{ pin: 5, position: 'Head' }] })).status, 200);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, position: 'Head' } })).status, 200);
  off();
  t.same(
    announced,
    [1, 2, 3].map(() => ({ pins: [5], change: 'upserted' })),
    'each change is still user.changed on the feed; the no-op is not',
  );
  const after = (await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&limit=100')).body;
  t.same(after.data.map((c) => [c.id, c.status]).sort(), before.data.map((c) => [c.id, 'failed']).sort(), 'no sync op added or requeued');
  t.match((await a.api<UserResponse>('GET', '/api/users/5')).body, { department: null, position: 'Head' }, 'the changes are stored');

  // A field the terminals hold, with the department: its sync is queued (an op of another kind replaces the upserts).
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, is_active: false, department: 'Ops' } })).status, 200);
  t.same(
    await opsFor(a.api, 5),
    [
      ['DEV1', 'user.delete'],
      ['DEV2', 'user.delete'],
    ],
    'a field the terminals hold still queues its sync',
  );
});
