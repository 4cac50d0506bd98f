import { createHash } from 'node:crypto';
import t from 'tap';
import { timeZoneMinutes } from '../../src/simulator/v2-session.js';
import { pushToken } from '../../src/simulator/v3-session.js';
import { keyValues, secondsOf } from '../../src/simulator/session.js';

const T = { timeout: 10_000 };

t.test('TimeZone: hours, minutes, or hh:mm [PUSH-v2 §4.5]', T, async (t) => {
  const cases: Array<[string, number | undefined]> = [
    ['8', 480],
    ['-5', -300],
    ['0', 0],
    ['14', 840],
    ['330', 330],
    ['345', 345],
    ['-210', -210],
    ['720', 720],
    ['-05:00', -300],
    ['+05:30', 330],
    ['08:00', 480],
    ['UTC', undefined],
    ['', undefined],
  ];
  for (const [value, minutes] of cases) t.equal(timeZoneMinutes(value), minutes, value);
});

t.test('token and key/value helpers [PUSH-v3 §5]', T, async (t) => {
  t.equal(pushToken('RC', 'SN1', 'SID'), createHash('md5').update('RCSN1SID').digest('hex'));
  const kv = keyValues(['A=1', 'B=x=y', 'junk', '=z']);
  t.same(
    [...kv],
    [
      ['A', '1'],
      ['B', 'x=y'],
    ],
  );
  t.equal(secondsOf(new Map([['D', '10']]), 'D'), 10);
  t.equal(secondsOf(new Map([['D', '-1']]), 'D'), undefined);
  t.equal(secondsOf(new Map(), 'D'), undefined);
});
