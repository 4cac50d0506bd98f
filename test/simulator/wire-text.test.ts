import t from 'tap';
import {
  encodeQueryValue,
  field,
  formatDeviceTime,
  isBase64,
  parseCommaFields,
  parseIntStrict,
  parseTabFields,
  parseWallClock,
  splitLines,
  wallClockValue,
  zkPackedSeconds,
} from '../../src/simulator/wire-text.js';

const T = { timeout: 10_000 };

t.test('splitLines: LF or CR LF, empty lines skipped [PUSH-v2 §2.3]', T, async (t) => {
  t.same(splitLines('a\r\nb\n\nc\n'), ['a', 'b', 'c']);
  t.same(splitLines(''), []);
});

t.test('TAB and comma fields [PUSH-v2 §2.4–§2.5]', T, async (t) => {
  const f = parseTabFields('PIN=1\tName=\tTMP=ab==\t');
  t.same(f.keys, ['PIN', 'Name', 'TMP'], 'trailing TAB dropped');
  t.equal(field(f, 'pin'), '1', 'case-insensitive');
  t.equal(field(f, 'tmp'), 'ab==', 'split at the first =');
  t.equal(field(f, 'nope'), undefined);
  t.equal(f.malformed, false);
  t.equal(parseTabFields('PIN=1\tbad').malformed, true);
  t.equal(parseTabFields('=x').malformed, true);
  t.same(parseTabFields('').keys, []);
  t.same(parseCommaFields('').keys, []);
  t.same(
    [...parseCommaFields('a=1,b=x=y').values],
    [
      ['a', '1'],
      ['b', 'x=y'],
    ],
  );
});

t.test('integers and times', T, async (t) => {
  t.equal(parseIntStrict('12'), 12);
  t.equal(parseIntStrict('-3'), -3);
  for (const bad of [undefined, '', '1.5', 'x', '1e3']) t.equal(parseIntStrict(bad), undefined, String(bad));
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
  t.equal(formatDeviceTime(at, 60), '2026-01-02 04:04:05');
  t.equal(formatDeviceTime(at, -300), '2026-01-01 22:04:05');
  t.same(parseWallClock('2026-02-01 00:00:00'), [2026, 2, 1, 0, 0, 0]);
  t.same(parseWallClock('2026-02-01T23:59:59'), [2026, 2, 1, 23, 59, 59]);
  for (const bad of [
    '2026-13-01 00:00:00',
    '2026-01-00 00:00:00',
    '2026-01-32 00:00:00',
    '2026-01-01 24:00:00',
    '2026-01-01 00:60:00',
    '2026-01-01 00:00:60',
    '2026-1-1 0:0:0',
  ])
    t.equal(parseWallClock(bad), undefined, bad);
  t.equal(wallClockValue('2026-01-01 00:00:01'), Date.UTC(2026, 0, 1, 0, 0, 1));
  t.equal(wallClockValue('nope'), undefined);
  // [PUSH-v3 §13.1] worked examples
  t.equal(zkPackedSeconds('2018-02-22 14:54:54'), 583080894);
  t.equal(zkPackedSeconds('2017-01-19 15:14:48'), 548003688);
  t.throws(() => zkPackedSeconds('yesterday'), RangeError);
});

t.test('base64 and query encoding', T, async (t) => {
  t.ok(isBase64('c2FmZHNh'));
  t.ok(isBase64('YWJj'));
  t.ok(isBase64('YWI='));
  t.ok(isBase64('YWI'), 'unpadded');
  for (const bad of ['', 'Y', '@@@@', 'YW=I']) t.notOk(isBase64(bad), bad);
  // fixture A25: `INFO=Ver%208.0.4.2-5856-01,1,0,…`
  t.equal(encodeQueryValue('Ver 8.0.4.2-5856-01,1,0'), 'Ver%208.0.4.2-5856-01,1,0');
  t.equal(encodeQueryValue('http://x/y?z=1'), 'http%3A%2F%2Fx%2Fy%3Fz%3D1');
});
