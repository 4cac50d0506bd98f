// The command sweep's cadence (devices/sweeps.ts commandSweepEveryMs): a short ack timeout is not
// mostly the sweep's wait. With BIOGATE_ACK_TIMEOUT_S=5 a result that never came was acted on up to 10 s
// after its deadline (the sweep ran every 10 s); now within half the timeout. Back-offs beside it.
import t from 'tap';
import { commandSweepEveryMs, refusalBackoffMs, syncBackoffMs } from '../../src/devices/sweeps.js';

t.test('the sweep runs every half ack timeout, between 2 s and 10 s', async (t) => {
  t.equal(commandSweepEveryMs(5), 2_500, 'the shortest allowed timeout: every 2.5 s');
  t.equal(commandSweepEveryMs(12), 6_000);
  t.equal(commandSweepEveryMs(20), 10_000, 'from 20 s on: every 10 s');
  t.equal(commandSweepEveryMs(300), 10_000, 'the default timeout');
  t.equal(commandSweepEveryMs(1), 2_000, 'never more often than every 2 s');
});

t.test('an unconfirmed sync line waits the ack timeout, doubled per send, up to the cap', async (t) => {
  const config = { ackTimeoutS: 5, syncRetryMaxS: 10 };
  t.same(
    [0, 1, 2, 30].map((a) => syncBackoffMs(config, a)),
    [5_000, 10_000, 10_000, 10_000],
  );
  t.same(
    [0, 1, 2, 3, 4, 30].map((a) => refusalBackoffMs(config, a)),
    [1_000, 2_000, 4_000, 8_000, 10_000, 10_000],
    'a refused line: 1 s, doubled, up to the cap',
  );
});
