// The pure parts of device trust (issue #12): CIDR parsing and matching (devices/networks.ts) and the
// comm key throttle's growth and memory bound (devices/throttle.ts). The end-to-end behaviour is in
// impersonation.test.ts.
import t from 'tap';
import { addressBytes, canonicalCidr, inNetworks } from '../../src/devices/networks.js';
import { createCommKeyThrottle } from '../../src/devices/throttle.js';

t.test('canonicalCidr: IPv4 and IPv6, masked, bare addresses get a full prefix; garbage is undefined', async (t) => {
  const cases: [string, string | undefined][] = [
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['192.0.2.7', '192.0.2.7/32'],
    [' 0.0.0.0/0 ', '0.0.0.0/0'],
    ['2001:DB8:0:0::1/32', '2001:db8::/32'],
    ['::1', '::1/128'],
    ['::/0', '::/0'],
    ['fe80::1:2/64', 'fe80::/64'],
    ['::ffff:192.0.2.1/128', '::ffff:c000:201/128'],
    ['1:0:0:1:0:0:0:1/128', '1:0:0:1::1/128'],
    ['10.0.0.0/33', undefined],
    ['300.1.1.1/8', undefined],
    ['10.0.0/8', undefined],
    ['fe80::/129', undefined],
    ['fe80::1%eth0/64', undefined],
    ['10.0.0.0/', undefined],
    ['10.0.0.0/08x', undefined],
    ['', undefined],
    ['/8', undefined],
    ['1:2:3:4:5:6:7:8:9/64', undefined],
    ['x'.repeat(64), undefined],
  ];
  for (const [text, want] of cases) t.equal(canonicalCidr(text), want, JSON.stringify(text));
});

t.test('inNetworks: prefix matching; IPv4-mapped IPv6 peers match IPv4 networks; malformed addresses match nothing', async (t) => {
  const nets = ['10.0.0.0/8', '192.0.2.128/25', '2001:db8::/32'];
  t.ok(inNetworks('10.255.1.1', nets));
  t.ok(inNetworks('192.0.2.200', nets));
  t.notOk(inNetworks('192.0.2.127', nets), 'outside the /25');
  t.ok(inNetworks('::ffff:10.1.2.3', nets), 'dual-stack form of an IPv4 peer');
  t.ok(inNetworks('0000:0000:0000:0000:0000:ffff:0a01:0203', nets), 'the same, written out in full');
  t.ok(inNetworks('2001:db8:ffff::1', nets));
  t.notOk(inNetworks('2001:db9::1', nets));
  t.notOk(inNetworks('11.0.0.1', nets));
  t.notOk(inNetworks('', nets));
  t.notOk(inNetworks('not an address', nets));
  t.ok(inNetworks('127.0.0.1', ['0.0.0.0/0']));
  t.notOk(inNetworks('::1', ['0.0.0.0/0']), 'IPv6 is not in an IPv4 network');
  t.same(addressBytes('::ffff:1.2.3.4'), Uint8Array.from([1, 2, 3, 4]));
});

t.test('throttle: free failures, then windows doubling to the cap, reset on success, forgotten when quiet', async (t) => {
  const th = createCommKeyThrottle({ freeFailures: 3, baseMs: 1_000, maxMs: 300_000, maxEntries: 100 });
  let now = 0;
  for (let i = 1; i <= 3; i++) t.same(th.failed('A', now), { failures: i, blockedMs: 0 });
  t.equal(th.blockedFor('A', now), 0);
  const windows: number[] = [];
  for (let i = 0; i < 12; i++) {
    const { blockedMs } = th.failed('A', now);
    windows.push(blockedMs);
    t.equal(th.blockedFor('A', now), blockedMs);
    t.equal(th.throttled(now), 1);
    now += blockedMs;
    t.equal(th.blockedFor('A', now), 0, 'the window ends');
  }
  t.same(windows, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000, 300_000]);
  th.succeeded('A');
  t.equal(th.failed('A', now).blockedMs, 0, 'success starts afresh');
  for (let i = 0; i < 5; i++) th.failed('B', now);
  t.ok(th.blockedFor('B', now) > 0);
  now += 600_001;
  t.equal(th.blockedFor('B', now), 0, 'quiet for twice the longest window: forgotten');
  t.equal(th.failed('B', now).failures, 1);
});

t.test('throttle: memory is bounded; the least recently failed serial goes first', async (t) => {
  const th = createCommKeyThrottle({ maxEntries: 1_000 });
  for (let i = 0; i < 5; i++) th.failed('KEEP', 0);
  for (let i = 0; i < 100_000; i++) {
    th.failed(`RANDOM${i}`, 1);
    if (i % 900 === 0) th.failed('KEEP', 1); // still failing: stays
  }
  t.equal(th.size, 1_000, 'capped');
  t.ok(th.blockedFor('KEEP', 1) > 0, 'a serial under attack keeps its window');
  t.equal(th.blockedFor('RANDOM0', 1), 0);
});
