import t from 'tap';
import { createFailureInjector } from '../../src/simulator/failure-injection.js';
import { createRng, seedFromText } from '../../src/simulator/rng.js';

const T = { timeout: 10_000 };

t.test('seeded generator repeats', T, async (t) => {
  const a = createRng(42);
  const b = createRng(42);
  const xs = Array.from({ length: 5 }, () => a.next());
  t.same(
    Array.from({ length: 5 }, () => b.next()),
    xs,
  );
  t.ok(xs.every((x) => x >= 0 && x < 1));
  const r = createRng(7);
  t.ok(Array.from({ length: 100 }, () => r.int(3)).every((n) => n >= 0 && n < 3));
  t.equal(seedFromText('SIM0001'), seedFromText('SIM0001'));
  t.not(seedFromText('SIM0001'), seedFromText('SIM0002'));
});

t.test('forced codes: longest prefix wins', T, async (t) => {
  const inject = createFailureInjector({ DATA: -1002, 'DATA QUERY ATTLOG': -1, AC_UNLOCK: 0 }, 0, -1005, createRng(1));
  t.equal(inject('DATA QUERY ATTLOG StartTime=…'), -1);
  t.equal(inject('DATA UPDATE USERINFO PIN=1'), -1002);
  t.equal(inject('AC_UNLOCK'), 0);
  t.equal(inject('INFO'), undefined);
});

t.test('fail rate is deterministic for a seed', T, async (t) => {
  const draw = (seed: number): Array<number | undefined> => {
    const inject = createFailureInjector({}, 0.5, -12, createRng(seed));
    return Array.from({ length: 40 }, () => inject('INFO'));
  };
  const first = draw(9);
  t.same(draw(9), first);
  t.ok(first.includes(-12) && first.includes(undefined), 'some fail, some run');
  t.ok(draw(3).every((c) => c === undefined || c === -12));
  const always = createFailureInjector({}, 1, -1005, createRng(1));
  t.equal(always('REBOOT'), -1005);
});
