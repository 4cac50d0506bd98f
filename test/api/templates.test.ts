/**
 * Templates through the API (issue #35 item 5), on both stores (test/mongo-api-leg.mjs runs test/api): a template
 * written by PUT reaches the emulated terminals that hold its user in their dialects, GET gives it back with its
 * bytes, DELETE removes it here and on the terminals; the kinds BioGate knows, the full scope, the per-user limit
 * and tenancy are enforced; the bytes never reach a log line or the event feed.
 */
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { logCapture, waitFor } from '../helpers/app.js';
import { gateway, settled, type ErrorBody, type Json } from './client.js';

const ADMIN_TOKEN = 'templates-admin-token-0123456789abcdef';
/** A recognisable template text (base64): the test looks for it in logs and events. */
const FP = Buffer.from('fingerprint-template-of-ann-'.repeat(20)).toString('base64');
const FP2 = Buffer.from('second-template-of-ann-'.repeat(20)).toString('base64');

interface Listed extends Json {
  pin: number;
  templates: Json[];
}

t.test('PUT reaches the terminals that hold the user, GET returns it, DELETE removes it everywhere', async (t) => {
  const logs = logCapture();
  const g = await gateway(t, { logs, config: { adminToken: ADMIN_TOKEN, longpollS: 1, logLevel: 'debug' } });
  const { a, started } = g;
  const events: AnyFeedEvent[] = [];
  started.app.feed.subscribe({ locationId: null }, (e) => void events.push(e));
  const sims = new Map<string, SimulatedDevice>();
  for (const [sn, protocol] of [
    ['TPL-V3-FP12', 'v3'],
    ['TPL-V2-FP12', 'v2'],
  ] as const) {
    t.equal((await a.api('POST', '/api/devices', { body: { sn, name: sn } })).status, 201);
    const sim = createSimulatedDevice({ url: g.url, sn, protocol, fpVersion: 12, pollDelayMs: 50, fast: true, retryDelayMs: 200 });
    t.teardown(() => sim.stop());
    sim.start();
    sims.set(sn, sim);
    await waitFor(() => sim.stats.polls > 0, 20_000, `${sn} handshake`);
  }
  t.equal((await a.api('POST', '/api/users', { body: { pin: 1001, first_name: 'Ann' } })).status, 201);
  await settled(a.api, 'the user on both terminals');

  const body = { major_ver: 12, minor_ver: 0, format: 0, template: FP };
  const put = await a.api('PUT', '/api/users/1001/templates/1/6', { body });
  t.equal(put.status, 201, 'a new slot');
  t.match(put.body, { pin: 1001, type: 1, index: 6, template_index: 0, valid: 1, duress: false, template: FP, source_sn: null });
  await settled(a.api, 'the template on both terminals');
  for (const [sn, sim] of sims)
    t.match(
      sim.templates('1001').map((x) => ({ type: x.type, no: x.no, tmp: x.tmp })),
      [{ type: 1, no: 6, tmp: FP }],
      `${sn} holds the template with the bytes written`,
    );
  const v3Lines =
    sims
      .get('TPL-V3-FP12')
      ?.executed()
      .map((c) => c.command) ?? [];
  t.ok(
    v3Lines.some((l) => l.startsWith('DATA UPDATE biodata Pin=1001\tNo=6\t') && l.endsWith(`Tmp=${FP}`)) ||
      v3Lines.some((l) => l.includes('pin=1001\tno=6') && l.endsWith(`tmp=${FP}`)),
    'the v3 terminal got a biodata line',
  );

  const listed = await a.api<Listed>('GET', '/api/users/1001/templates');
  t.equal(listed.status, 200);
  t.match(listed.body.templates, [{ type: 1, index: 6, major_ver: 12, template: FP, size: FP.length }]);
  const before = (await a.api<{ total: number }>('GET', '/api/commands?command=sync-users&limit=1')).body.total;
  t.equal((await a.api('PUT', '/api/users/1001/templates/1/6', { body })).status, 200, 'the same template again: replaced');
  t.equal(
    (await a.api<{ total: number }>('GET', '/api/commands?command=sync-users&limit=1')).body.total,
    before,
    'an unchanged template queues nothing',
  );
  t.equal((await a.api('PUT', '/api/users/1001/templates/1/7', { body: { ...body, template: FP2, duress: true } })).status, 201);
  await settled(a.api, 'the second template');
  for (const [sn, sim] of sims) t.equal(sim.templates('1001').length, 2, `${sn} holds both`);

  t.equal((await a.api('DELETE', '/api/users/1001/templates/1/6')).status, 200);
  await settled(a.api, 'the delete');
  for (const [sn, sim] of sims)
    t.same(
      sim.templates('1001').map((x) => x.no),
      [7],
      `${sn} no longer holds finger 6, still holds finger 7`,
    );
  t.ok(sims.get('TPL-V2-FP12')?.users().has('1001'), 'the user stays on the terminal');
  t.match(await a.api('DELETE', '/api/users/1001/templates/1/6'), { status: 404, body: { code: 'TEMPLATE_NOT_FOUND' } });
  t.match((await a.api<Listed>('GET', '/api/users/1001/templates')).body.templates, [{ index: 7, duress: true }]);
  const ops = (await a.api<{ data: { params: Json }[] }>('GET', '/api/commands?command=sync-users&limit=100')).body.data;
  t.ok(
    ops.some((o) => o.params['op'] === 'template.delete' && o.params['type'] === 1 && o.params['no'] === 6),
    'the delete is a template.delete op, visible as a command',
  );

  t.notOk(logs.text().includes(FP) || logs.text().includes(FP2), 'no template bytes in any log line (debug level)');
  t.notOk(JSON.stringify(events).includes(FP) || JSON.stringify(events).includes(FP2), 'no template bytes in any event');
});

t.test('refusals: kinds, bytes, body, scope, unknown user, per-user limit, other locations', async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const { a, started } = g;
  const b = await g.tenant('Other');
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Eve' } })).status, 201);
  const body = { major_ver: 10, minor_ver: 0, format: 0, template: FP };
  const refusals: [string, unknown, number, string, string][] = [
    ['/api/users/5/templates/3/0', body, 422, 'VALIDATION_FAILED', 'a voiceprint is not a kind BioGate knows'],
    ['/api/users/5/templates/1/10', body, 422, 'VALIDATION_FAILED', 'finger 10'],
    ['/api/users/5/templates/2/12', body, 422, 'VALIDATION_FAILED', 'near-infrared face record 12'],
    ['/api/users/5/templates/256/0', body, 422, 'VALIDATION_FAILED', 'type out of range'],
    ['/api/users/5/templates/1/0', { ...body, template: 'not base64!' }, 422, 'VALIDATION_FAILED', 'not base64'],
    ['/api/users/5/templates/1/0', { ...body, template: 'A'.repeat(65_540) }, 422, 'VALIDATION_FAILED', 'over 64 KiB'],
    ['/api/users/5/templates/1/0', { minor_ver: 0, format: 0, template: FP }, 422, 'VALIDATION_FAILED', 'no major_ver'],
    ['/api/users/6/templates/1/0', body, 404, 'USER_NOT_FOUND', 'a PIN the location lacks'],
  ];
  for (const [path, sent, status, code, what] of refusals)
    t.match(await a.api<ErrorBody>('PUT', path, { body: sent }), { status, body: { code } }, what);
  t.match((await a.api<ErrorBody>('PUT', '/api/users/5/templates/3/0', { body })).body.detail, [
    { loc: ['path', 'type'], msg: /not one BioGate knows/ },
  ]);
  t.match((await a.api<ErrorBody>('PUT', '/api/users/5/templates/1/10', { body })).body.detail, [
    { loc: ['path', 'index'], msg: 'a fingerprint template is numbered 0–9, got 10' },
  ]);

  const operator = await started.app.locations.issueToken({ location_id: a.id, scope: 'operator', label: 'desk' });
  const read = await started.app.locations.issueToken({ location_id: a.id, scope: 'read', label: 'viewer' });
  for (const token of [operator.token, read.token]) {
    t.match(await a.api('GET', '/api/users/5/templates', { token }), { status: 403, body: { code: 'SCOPE_DENIED' } });
    t.match(await a.api('PUT', '/api/users/5/templates/1/0', { body, token }), { status: 403, body: { code: 'SCOPE_DENIED' } });
    t.match(await a.api('DELETE', '/api/users/5/templates/1/0', { token }), { status: 403, body: { code: 'SCOPE_DENIED' } });
  }
  t.same((await a.api<Listed>('GET', '/api/users/5/templates')).body.templates, [], 'nothing was written');
  const extra = await a.api<Json>('PUT', '/api/users/5/templates/1/9', { body: { ...body, note: 'x' } });
  t.equal(extra.status, 201, 'an unknown field is ignored, as in every body');
  t.notOk('note' in extra.body);
  t.equal((await a.api('DELETE', '/api/users/5/templates/1/9')).status, 200);

  // 64 templates a user: ten fingers, twelve near-infrared face records, 32 palm-vein and visible-face records, ten finger veins.
  const slots: string[] = [];
  for (let no = 0; no <= 9; no++) slots.push(`1/${no}`);
  for (let no = 0; no <= 11; no++) slots.push(`2/${no}`);
  for (let no = 0; no <= 15; no++) slots.push(`8/${no}`, `9/${no}`);
  for (let no = 0; no <= 9; no++) slots.push(`7/${no}`);
  slots.push('6/0');
  t.equal(slots.length, 65);
  for (const slot of slots.slice(0, 64)) t.equal((await a.api('PUT', `/api/users/5/templates/${slot}`, { body })).status, 201, slot);
  t.match(await a.api('PUT', `/api/users/5/templates/${slots[64]}`, { body }), { status: 429, body: { code: 'QUOTA_EXCEEDED' } });
  t.equal(
    (await a.api('PUT', `/api/users/5/templates/1/0`, { body: { ...body, template: FP2 } })).status,
    200,
    'replacing one still works',
  );

  t.equal((await b.api('POST', '/api/users', { body: { pin: 5, first_name: 'Other Eve' } })).status, 201);
  t.same((await b.api<Listed>('GET', '/api/users/5/templates')).body.templates, [], "another location's user 5 holds none of them");
  t.match(await b.api('DELETE', '/api/users/5/templates/1/0'), { status: 404, body: { code: 'TEMPLATE_NOT_FOUND' } });
  t.equal((await a.api<Listed>('GET', '/api/users/5/templates')).body.templates.length, 64);
  t.equal((await a.api('DELETE', '/api/users/5')).status, 200);
  t.match(await a.api('GET', '/api/users/5/templates'), { status: 404, body: { code: 'USER_NOT_FOUND' } }, 'a deleted user has none');
});

t.test('a slot filled again before its delete is dispatched is sent, never deleted from the terminal', async (t) => {
  const g = await gateway(t, { config: { longpollS: 1 } });
  const { a } = g;
  const sn = 'TPL-REFILL-V3';
  t.equal((await a.api('POST', '/api/devices', { body: { sn, name: sn } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 42, first_name: 'Kim' } })).status, 201);
  const body = { major_ver: 12, minor_ver: 0, format: 0, template: FP };
  // The terminal is not online yet: every op stays pending, the delete (revocation lane) ahead of the upsert.
  t.equal((await a.api('PUT', '/api/users/42/templates/1/2', { body })).status, 201);
  t.equal((await a.api('DELETE', '/api/users/42/templates/1/2')).status, 200);
  t.equal((await a.api('PUT', '/api/users/42/templates/1/2', { body })).status, 201, 'written again');
  const sim = createSimulatedDevice({ url: g.url, sn, protocol: 'v3', fpVersion: 12, pollDelayMs: 50, fast: true });
  t.teardown(() => sim.stop());
  sim.start();
  await settled(a.api, 'the ops of user 42');
  t.match(
    sim.templates('42').map((x) => ({ no: x.no, tmp: x.tmp })),
    [{ no: 2, tmp: FP }],
    'the terminal holds the template',
  );
  t.same(
    sim
      .executed()
      .map((c) => c.command)
      .filter((l) => l.startsWith('DATA DELETE') && l.includes('Pin=42')),
    [],
    'no delete line reached it: the delete rendered the slot as stored',
  );
  const ops = (await a.api<{ data: { status: string; params: Json }[] }>('GET', '/api/commands?command=sync-users&limit=10')).body.data;
  t.ok(ops.some((o) => o.params['op'] === 'template.delete' && o.status === 'success'));
});
