import t from 'tap';
import { createSimulatedDevice, runSimulation } from '../../src/simulator/index.js';
import type { SimulatedDeviceStats } from '../../src/simulator/index.js';
import { formatProgress, formatSummary, summarize } from '../../src/simulator/summary.js';
import type { SimulationSummary } from '../../src/simulator/summary.js';
import { startPeer } from './fixtures/peer.js';

const T = { timeout: 15_000 };

t.test('a mixed fleet polls, executes, punches and reports', T, async (t) => {
  const peer = await startPeer({ delayS: 1 });
  t.teardown(() => peer.close());
  peer.enqueue('SIM0001', 'C:1:DATA UPDATE USERINFO PIN=5', 'C:2:USER ADD PIN=6');
  const progress: string[] = [];
  const ac = new AbortController();
  // end the run once every device polled a few times and enough punches arrived (bounded by T)
  const enough = (): boolean =>
    ['SIM0001', 'SIM0002', 'SIM0003'].every((sn) => peer.find('/iclock/getrequest', { SN: sn }).length >= 3) &&
    // 12 seen by the peer leaves room for uploads still in flight when the run is aborted (their
    // acknowledgement never arrives), so at least 10 are acknowledged whatever the machine's load.
    peer.find('/iclock/cdata').filter((r) => r.query.get('table') === 'ATTLOG' || r.query.get('table') === 'rtlog').length >= 12 &&
    peer.find('/iclock/cdata', { table: 'ATTLOG', SN: 'SIM0001' }).some((r) => r.body.startsWith('5\t')) &&
    progress.length > 0;
  void peer.waitFor(enough, 12_000).then(
    () => ac.abort(),
    () => ac.abort(),
  );
  const summary = await runSimulation({
    url: peer.url,
    devices: 3,
    protocol: 'mixed',
    snPrefix: 'SIM',
    punchesPerMinute: 3000,
    pollDelayMs: 50,
    requestTimeoutMs: 5000,
    retryDelayMs: 50,
    fast: true,
    seed: 3,
    progress: (line) => progress.push(line),
    progressIntervalMs: 50,
    signal: ac.signal,
  });
  const handshakes = peer.find('/iclock/cdata').filter((r) => r.query.get('options') === 'all');
  t.same([...new Set(handshakes.map((r) => `${r.query.get('SN')}/${r.query.get('pushver')}`))].sort(), [
    'SIM0001/2.4.1',
    'SIM0002/3.1.2',
    'SIM0003/2.4.1',
  ]);
  t.match(summary, { devices: 3, v2: 2, v3: 1, online: 3, connected: 3, handshakes: 3, errors: 0, protocolWarnings: 0 });
  t.same(summary.commands, { executed: 2, ok: 1, failed: 1, lost: 0, byCode: { 0: 1, '-1002': 1 } });
  t.ok(summary.punches >= 10, `punches: ${summary.punches}`);
  t.ok(summary.uploads.acknowledged >= 13, 'options uploads and attendance');
  t.equal(summary.uploads.failed, 0);
  t.ok(summary.polls >= 6, `polls: ${summary.polls}`);
  t.match(
    progress.at(-1),
    /^\[\d+\.\ds\] online \d\/3 · polls \d+ · commands \d ok, \d failed · uploads \d+\/\d+ acknowledged · errors 0$/,
  );
});

t.test('an open-ended run ends on its signal; offline devices are not punched', T, async (t) => {
  const gone = await startPeer();
  await gone.close();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 200);
  const summary = await runSimulation({
    url: gone.url,
    devices: 2,
    protocol: 'v3',
    snPrefix: 'X',
    punchesPerMinute: 60_000,
    retryDelayMs: 20,
    signal: ac.signal,
  });
  t.match(summary, { devices: 2, v3: 2, online: 0, connected: 0, punches: 0 });
  t.ok(summary.errors >= 2);
  const lines: string[] = [];
  const early = await runSimulation({
    url: gone.url,
    devices: 1,
    protocol: 'v2',
    snPrefix: 'Y',
    signal: AbortSignal.abort(),
    progress: (l) => lines.push(l),
  });
  t.equal(early.devices, 1, 'an aborted signal returns at once');
  t.same(lines, [], 'no progress before the default 2 s interval');
});

t.test('validation', T, async (t) => {
  const base = { url: 'http://127.0.0.1:1', protocol: 'v2' as const, snPrefix: 'S', durationS: 1 };
  for (const devices of [0, 1.5, 10_001]) await t.rejects(runSimulation({ ...base, devices }), RangeError, String(devices));
  await t.rejects(runSimulation({ ...base, devices: 1, durationS: 0 }), RangeError);
  await t.rejects(runSimulation({ ...base, devices: 1, punchesPerMinute: -1 }), RangeError);
});

t.test('summary and its text', T, async (t) => {
  const a = createSimulatedDevice({ url: 'http://127.0.0.1:1', sn: 'A1', protocol: 'v2' });
  const b = createSimulatedDevice({ url: 'http://127.0.0.1:1', sn: 'B1', protocol: 'v3' });
  Object.assign(a.stats as SimulatedDeviceStats, {
    commandsByCode: { 0: 3, '-1002': 1 },
    online: true,
    handshakes: 2,
    polls: 9,
    punches: 4,
    uploadsSent: 5,
    uploadsAcknowledged: 4,
    uploadsFailed: 1,
  });
  Object.assign(b.stats as SimulatedDeviceStats, {
    commandsByCode: { 0: 1, 3: 1 },
    handshakes: 1,
    polls: 2,
    commandsLost: 1,
    errors: 2,
    protocolWarnings: 1,
    templatesEnrolled: 1,
    uploadsDropped: 1,
  });
  const s: SimulationSummary = summarize([a, b], 61_250);
  t.match(s, {
    devices: 2,
    v2: 1,
    v3: 1,
    online: 1,
    connected: 2,
    handshakes: 3,
    polls: 11,
    punches: 4,
    templatesEnrolled: 1,
    errors: 2,
    protocolWarnings: 1,
    commands: { executed: 6, ok: 5, failed: 1, lost: 1, byCode: { 0: 4, 3: 1, '-1002': 1 } },
    uploads: { sent: 5, acknowledged: 4, failed: 1, dropped: 1 },
  });
  t.equal(formatProgress(s), '[61.3s] online 1/2 · polls 11 · commands 5 ok, 1 failed · uploads 4/5 acknowledged · errors 2');
  t.same(formatSummary(s), [
    'simulation finished after 61.3s',
    'devices online: 1/2 (v2 1, v3 1; 2 connected at least once, 3 handshakes)',
    'polls: 11',
    'commands executed: 6 (ok 5, failed 1, lost after restart 1) by return code: -1002: 1, 0: 4, 3: 1',
    'uploads: 5 sent, 4 acknowledged, 1 failed, 1 dropped',
    'punches: 4, templates enrolled: 1',
    'errors: 2, protocol warnings: 1',
  ]);
  t.equal(formatSummary(summarize([], 0))[3], 'commands executed: 0 (ok 0, failed 0, lost after restart 0)');

  // A terminal that fails says why, and the usual cause comes with what to do about it.
  Object.assign(b.stats as SimulatedDeviceStats, { lastError: 'first contact answered HTTP 401' });
  const why = formatSummary(summarize([a, b], 1000)).slice(7);
  t.same(why, [
    `  ${b.sn} (v3): first contact answered HTTP 401`,
    'hint: a v3 terminal that registered with BioGate before is refused (401) when it registers again, as a replaced terminal would be;',
    '      let it register anew with: npx biogate device reset-registration --location <id> --sn <SN> (README "Security model")',
  ]);
});
