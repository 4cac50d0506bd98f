/**
 * An incremental transaction read (issue #37 "Verified by"): `id__gt` from the last id seen, then `next` until the
 * end, again and again while two terminals keep punching, sees every punch exactly once.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { TEST_STORE } from '../helpers/app.js';
import { biotimeSetup, type List } from './helpers.js';

const PUNCHES = 60;

t.test('id__gt then next to the end, while punches arrive: each punch once', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  const sims = ['INC-A', 'INC-B'].map((sn) =>
    createSimulatedDevice({ url: s.app.url, sn, protocol: 'v2', pollDelayMs: 30, fast: true, requestTimeoutMs: 10_000, retryDelayMs: 100 }),
  );
  for (const sim of sims) {
    t.equal((await s.api('POST', '/api/devices', { sn: sim.sn, name: sim.sn })).status, 201);
    t.teardown(() => sim.stop());
    sim.start();
  }
  while (sims.some((sim) => sim.stats.polls === 0)) await new Promise((r) => setTimeout(r, 10));
  // Both terminals upload at once, each punch its own request.
  let acknowledged = 0;
  const producing = Promise.all(
    sims.map(async (sim, n) => {
      for (let i = 0; i < PUNCHES; i++) {
        const minute = String(i % 60).padStart(2, '0');
        if (await sim.punch(String(100 + n), `2026-03-01 ${10 + Math.floor(i / 60)}:${minute}:0${n}`, 0, 1)) acknowledged++;
        await new Promise((r) => setTimeout(r, 5));
      }
    }),
  );
  let producersDone = false;
  void producing.then(() => (producersDone = true));

  const seen: number[] = [];
  let cursor = 0;
  let pages = 0;
  const deadline = Date.now() + (TEST_STORE === 'mongodb' ? 90_000 : 30_000);
  while (Date.now() < deadline) {
    let path: string | null = `/biotime/iclock/api/transactions/?id__gt=${cursor}&page_size=7`;
    while (path) {
      const r = await s.call('GET', path, auth);
      t.equal(r.status, 200);
      const page = r.body as unknown as List;
      pages++;
      for (const item of page.data) seen.push(item['id'] as number);
      path = page.next === null ? null : page.next.slice(s.app.url.length);
    }
    if (seen.length > 0) cursor = Math.max(cursor, seen[seen.length - 1] as number);
    if (producersDone && seen.length >= 2 * PUNCHES) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await producing;
  t.equal(acknowledged, 2 * PUNCHES, 'every punch acknowledged by the gateway');
  t.equal(new Set(seen).size, seen.length, 'no punch read twice');
  t.equal(seen.length, 2 * PUNCHES, 'every punch read');
  t.same(
    seen,
    [...seen].sort((a, b) => a - b),
    'in id order',
  );
  t.ok(pages > (2 * PUNCHES) / 7, `read page by page while they arrived (${pages} pages)`);
});
