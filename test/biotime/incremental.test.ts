/**
 * An incremental transaction read (issue #37 "Verified by"): `id__gt` from the last id seen, then `next` until the
 * end, again and again while two terminals keep punching, sees every punch exactly once.
 */
import t from 'tap';
import { TEST_STORE } from '../helpers/app.js';
import { biotimeSetup, terminal, type List } from './helpers.js';

const PUNCHES = 60;

t.test('id__gt then next to the end, while punches arrive: each punch once', async (t) => {
  const s = await biotimeSetup(t);
  const auth = `Token ${s.app.token}`;
  const sims = [await terminal(t, s, 'INC-A', 'INC-A'), await terminal(t, s, 'INC-B', 'INC-B')];
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
    // The id of the last punch read, in the list's order (arrival: on MongoDB not always the highest id).
    if (seen.length > 0) cursor = seen[seen.length - 1] as number;
    if (producersDone && seen.length >= 2 * PUNCHES) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await producing;
  t.equal(acknowledged, 2 * PUNCHES, 'every punch acknowledged by the gateway');
  t.equal(new Set(seen).size, seen.length, 'no punch read twice');
  t.equal(seen.length, 2 * PUNCHES, 'every punch read');
  // Arrival order, as the attendance cursor feed gives it (on SQLite id order; on MongoDB, where ids are taken before
  // their writes, upload time then id).
  const feed: number[] = [];
  for (let after = '0', more = true; more;) {
    const r = await s.api('GET', `/api/attendance?after=${after}&limit=100`);
    feed.push(...(r.body['data'] as { id: number }[]).map((x) => x.id));
    after = r.body['next_cursor'] as string;
    more = r.body['has_more'] === true;
  }
  t.same(seen, feed, 'in arrival order, as the attendance cursor feed');
  t.ok(pages > (2 * PUNCHES) / 7, `read page by page while they arrived (${pages} pages)`);
});
