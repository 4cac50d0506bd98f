import { Writable } from 'node:stream';
import t from 'tap';
import { parseSimulateArgs, progressWriter, simulateCommand, SIMULATE_USAGE } from '../../src/simulator/index.js';
import { startPeer } from './fixtures/peer.js';

const T = { timeout: 15_000 };

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

const REQUIRED = ['--devices', '2', '--protocol', 'mixed', '--url', 'http://127.0.0.1:8080', '--sn-prefix', 'SIM'];

t.test('flags: both forms, defaults', T, async (t) => {
  t.same(parseSimulateArgs([...REQUIRED, '--duration=30', '--punch-rate', '120', '--fast']), {
    kind: 'run',
    args: {
      url: 'http://127.0.0.1:8080',
      devices: 2,
      protocol: 'mixed',
      snPrefix: 'SIM',
      durationS: 30,
      punchesPerMinute: 120,
      fast: true,
    },
  });
  t.same(parseSimulateArgs(['--devices=1', '--protocol=v3', '--url=https://gw.example/base', '--sn-prefix=A1']), {
    kind: 'run',
    args: {
      url: 'https://gw.example/base',
      devices: 1,
      protocol: 'v3',
      snPrefix: 'A1',
      durationS: undefined,
      punchesPerMinute: undefined,
      fast: false,
    },
  });
  t.same(parseSimulateArgs(['--bogus', '-h']), { kind: 'help' });
  t.same(parseSimulateArgs(['--help']), { kind: 'help' });
});

t.test('flags: convergence faults (issue #31 item 7)', T, async (t) => {
  const r = parseSimulateArgs([...REQUIRED, '--refuse-rate', '0.05', '--lose-rate=0.05', '--wipe-after', '30', '--keypad-users', '10']);
  t.match(r, { kind: 'run', args: { faults: { refuseRate: 0.05, loseRate: 0.05, wipeAfterS: 30, keypadUsers: 10 } } });
  const bad = parseSimulateArgs([...REQUIRED, '--refuse-rate', '2', '--lose-rate', 'x', '--wipe-after', '0', '--keypad-users', '10001']);
  t.same(bad.kind === 'error' ? bad.errors : [], [
    "--refuse-rate must be a number from 0 to 1, got '2'",
    "--lose-rate must be a number from 0 to 1, got 'x'",
    "--wipe-after must be an integer from 1 to 86400, got '0'",
    "--keypad-users must be an integer from 0 to 10000, got '10001'",
  ]);
});

t.test('flags: every problem reported at once', T, async (t) => {
  const errors = (argv: string[]): readonly string[] => {
    const r = parseSimulateArgs(argv);
    return r.kind === 'error' ? r.errors : [];
  };
  t.same(errors([]), ['--devices is required', '--protocol is required', '--url is required', '--sn-prefix is required']);
  t.same(errors([...REQUIRED, '--what', 'extra', '--fast=1', '--fast', '--fast']), [
    'unknown flag --what (valid: --devices, --protocol, --url, --sn-prefix, --duration, --punch-rate, --refuse-rate, --lose-rate, --wipe-after, --keypad-users, --fast, --help)',
    "unexpected argument 'extra'",
    '--fast takes no value',
    '--fast given twice',
  ]);
  t.same(errors(['--devices', '--protocol', 'v2', '--url', 'http://x', '--sn-prefix', 'S', '--devices', '3', '--url=']), [
    '--devices needs a value',
    '--url needs a value',
  ]);
  t.same(errors([...REQUIRED, '--devices', '3']), ['--devices given twice']);
  t.same(
    errors(['--devices', '0', '--protocol', 'v4', '--url', 'ftp://x', '--sn-prefix', 'a-b', '--duration', '86401', '--punch-rate', '-5']),
    [
      "--devices must be an integer from 1 to 10000, got '0'",
      "--protocol must be v2, v3 or mixed, got 'v4'",
      "--url must be an http:// or https:// URL, got 'ftp://x'",
      "--sn-prefix must be 1-16 letters or digits, got 'a-b'",
      "--duration must be an integer from 1 to 86400, got '86401'",
      "--punch-rate must be an integer from 0 to 600000, got '-5'",
    ],
  );
  t.same(errors(['--devices', '1.5', '--protocol', 'v2', '--url', 'not a url', '--sn-prefix', 'ABCDEFGHIJKLMNOPQ']), [
    "--devices must be an integer from 1 to 10000, got '1.5'",
    "--url must be an http:// or https:// URL, got 'not a url'",
    "--sn-prefix must be 1-16 letters or digits, got 'ABCDEFGHIJKLMNOPQ'",
  ]);
  t.same(errors(['--devices', '10001', '--protocol', 'v2', '--url', 'http://x', '--sn-prefix', 'S']), [
    "--devices must be an integer from 1 to 10000, got '10001'",
  ]);
});

t.test('simulateCommand: help and usage errors', T, async (t) => {
  const out = sink();
  const err = sink();
  t.equal(await simulateCommand(['--help'], { stdout: out.stream, stderr: err.stream, isTTY: false }), 0);
  t.equal(out.text(), SIMULATE_USAGE);
  t.equal(await simulateCommand(['--devices', 'x'], { stdout: out.stream, stderr: err.stream, isTTY: false }), 2);
  t.match(
    err.text(),
    /^biogate simulate: --devices must be an integer from 1 to 10000, got 'x'\nbiogate simulate: --protocol is required\n/,
  );
  t.match(err.text(), /\n\nUsage: biogate simulate --devices N/);
});

t.test('simulateCommand: a timed run prints the summary', T, async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const out = sink();
  const code = await simulateCommand(
    ['--devices', '2', '--protocol', 'v2', '--url', peer.url, '--sn-prefix', 'CLI', '--duration', '1', '--fast', '--punch-rate', '600'],
    { stdout: out.stream, stderr: sink().stream, isTTY: false },
  );
  t.equal(code, 0);
  t.match(
    out.text(),
    /^simulation finished after 1\.\ds\ndevices online: 2\/2 \(v2 2, v3 0; 2 connected at least once, 2 handshakes\)\npolls: \d+\n/,
  );
  t.ok(peer.find('/iclock/cdata', { SN: 'CLI0002' }).length > 0);
});

t.test('simulateCommand: on a TTY one line is rewritten; the signal ends the run', T, async (t) => {
  const peer = await startPeer();
  t.teardown(() => peer.close());
  const out = sink();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 700);
  const code = await simulateCommand(['--devices', '1', '--protocol', 'v3', '--url', peer.url, '--sn-prefix', 'TTY'], {
    stdout: out.stream,
    stderr: sink().stream,
    isTTY: true,
    signal: ac.signal,
  });
  t.equal(code, 0);
  const text = out.text();
  t.match(text, /^\r\[0\.\ds\] online 1\/1 · /);
  t.ok(text.includes('\u001b[K\nsimulation finished after 0.'), 'the progress line is cleared to its end, then the summary follows');
});

t.test('simulateCommand: exit 1 when no terminal could connect', T, async (t) => {
  const gone = await startPeer();
  await gone.close();
  const out = sink();
  t.equal(
    await simulateCommand(['--devices', '1', '--protocol', 'v2', '--url', gone.url, '--sn-prefix', 'Z', '--duration', '1'], {
      stdout: out.stream,
      stderr: sink().stream,
      isTTY: false,
    }),
    1,
  );
  t.match(out.text(), /devices online: 0\/1 \(v2 1, v3 0; 0 connected at least once/);
});

t.test('progress writer', T, async (t) => {
  const tty = sink();
  progressWriter(tty.stream, true)('a');
  progressWriter(tty.stream, true)('b');
  t.equal(tty.text(), '\ra\x1b[K\rb\x1b[K');
  const plain = sink();
  progressWriter(plain.stream, false)('a');
  t.equal(plain.text(), 'a\n');
});
