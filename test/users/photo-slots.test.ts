/** Photo decode slots (src/users/photo-slots.ts): two at a time, FIFO, a bounded wait per location. */
import t from 'tap';
import { BioGateError } from '../../src/errors.js';
import { createDecodeSlots } from '../../src/users/photo-slots.js';

/** A job that runs until released, recording when it started. */
function job(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { fn: async () => (started.push(name), await done, name), release };
}

const tick = () => new Promise((r) => setImmediate(r));

t.test('two at a time, the rest in arrival order; a location beyond its waiting share gets 429', async (t) => {
  const slots = createDecodeSlots(2, 2);
  const started: string[] = [];
  const jobs = ['a1', 'a2', 'a3', 'b1', 'a4'].map((n) => job(started, n));
  const runs = jobs.map((j, i) => slots.run(i === 3 ? 2 : 1, j.fn));
  await tick();
  t.strictSame(started, ['a1', 'a2'], 'two run, three wait');
  const refused = await slots.run(1, async () => 'a5').catch((e: unknown) => e);
  t.ok(refused instanceof BioGateError && refused.code === 'RATE_LIMITED', 'location 1 already has two waiting: 429');
  jobs[0]?.release();
  await tick();
  t.strictSame(started, ['a1', 'a2', 'a3'], 'the first waiting takes the freed slot');
  for (const j of jobs) j.release();
  t.strictSame(await Promise.all(runs), ['a1', 'a2', 'a3', 'b1', 'a4']);
  t.strictSame(started, ['a1', 'a2', 'a3', 'b1', 'a4'], 'in arrival order');
  const again = job(started, 'later');
  again.release();
  t.equal(await slots.run(1, again.fn), 'later', 'all slots free again');
});

t.test('a failing job frees its slot', async (t) => {
  const slots = createDecodeSlots(1, 4);
  await t.rejects(
    slots.run(1, async () => Promise.reject(new Error('broken JPEG'))),
    /broken JPEG/,
  );
  t.equal(await slots.run(1, async () => 'next'), 'next');
});
