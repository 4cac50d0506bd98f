// The simulated v2 terminal against a scripted server over real HTTP: exact requests, bodies with
// real TABs, batching, re-sends, re-handshakes and aborts.

import { createHash } from 'node:crypto';
import t from 'tap';
import type { Test } from 'tap';
import { createSimulatedDevice, SimulatorError } from '../../src/simulator/index.js';
import type { SimulatedDevice, SimulatedDeviceOptions } from '../../src/simulator/index.js';
import { startPeer } from './fixtures/peer.js';
import type { Peer, PeerOptions, RecordedRequest } from './fixtures/peer.js';

const T = { timeout: 15_000 };
const NOW = new Date(Date.UTC(2026, 2, 24, 16, 12, 26));
const TMP = 'c2FmZHNhd3Jyd3JIcmVyZXJIcnc=';

async function setup(
  t: Test,
  sn: string,
  peerOpts: PeerOptions = {},
  devOpts: Partial<SimulatedDeviceOptions> = {},
): Promise<{ peer: Peer; d: SimulatedDevice }> {
  const peer = await startPeer(peerOpts);
  const d = createSimulatedDevice({ url: peer.url, sn, protocol: 'v2', now: () => NOW, retryDelayMs: 20, ...devOpts });
  t.teardown(async () => {
    await d.stop();
    await peer.close();
  });
  return { peer, d };
}

const after = (peer: Peer, r: RecordedRequest): RecordedRequest[] => peer.requests.slice(peer.requests.indexOf(r) + 1);
const lastOf = (peer: Peer, path: string): RecordedRequest => peer.find(path).at(-1) as RecordedRequest;

t.test('handshake, options upload and INFO heartbeat [PUSH-v2 §4, §5, §7.1]', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2A', {}, { commKey: 'abc' });
  await d.handshake();
  const [hs, options] = peer.requests;
  t.match(hs, {
    method: 'GET',
    path: '/iclock/cdata',
    rawQuery: 'SN=SIMV2A&options=all&pushver=2.4.1&language=69&pushcommkey=abc',
    body: '',
  });
  t.equal(hs?.headers['user-agent'], 'iClock Proxy/1.09');
  t.equal(hs?.headers.cookie, undefined);
  t.match(options, { method: 'POST', path: '/iclock/cdata', rawQuery: 'SN=SIMV2A&table=options&Stamp=9999' });
  t.match(options?.body, /^~DeviceName=BioGate Sim Attendance,MAC=00:17:61:[0-9a-f:]+,TransactionCount=0,FPCount=0,UserCount=0,/);
  const s = d.session();
  t.match(s, { established: true, pollDelayMs: 1000, retryDelayMs: 20, requestTimeoutMs: 20_000, realtime: true, utcOffsetMinutes: 60 });
  t.same(s.warnings, []);
  t.equal(s.serverOptions.TransFlag, 'TransData AttLog\tOpLog\tAttPhoto\tEnrollUser\tChgUser\tEnrollFP\tChgFP\tFACE\tUserPic');
  t.type(s.lastDateHeader, 'string');
  t.equal(await d.pollOnce(), 0);
  t.match(
    lastOf(peer, '/iclock/getrequest').rawQuery,
    /^SN=SIMV2A&INFO=Ver%208\.0\.4\.3-BGSIM,0,0,0,10\.\d+\.\d+\.\d+,10,0,0,0,100$/,
    'fixture A25 form',
  );
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/getrequest').rawQuery, 'SN=SIMV2A', 'INFO only on the first poll');
  t.match(d.stats, { handshakes: 1, polls: 2, online: true, errors: 0 });
});

t.test('commands run in order and their results go in one POST (fixture A28)', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2B');
  const seen: string[] = [];
  const off = d.onCommand((c) => seen.push(c.id));
  d.onCommand(() => {
    throw new Error('listener bug');
  });
  peer.enqueue(
    'SIMV2B',
    'C:1:DATA UPDATE USERINFO PIN=1001\tName=Ann Lee\tPri=0\tPasswd=\tCard=123456789\tGrp=1\tTZ=0000000100000000',
    `C:2:DATA UPDATE FINGERTMP PIN=1001\tFID=0\tSize=28\tValid=1\tTMP=${TMP}`,
    'C:OPENDOOR0:AC_UNLOCK',
    'C:4:Shell date',
    'C:5:USER ADD PIN=1',
    'C:6:DATA UPDATE FINGERTMP PIN=9\tFID=0\tSize=28\tValid=1\tTMP=' + TMP,
  );
  t.equal(await d.pollOnce(), 6);
  const cmd = lastOf(peer, '/iclock/devicecmd');
  t.equal(cmd.rawQuery, 'SN=SIMV2B');
  t.equal(
    cmd.body,
    [
      'ID=1&Return=0&CMD=DATA',
      'ID=2&Return=0&CMD=DATA',
      'ID=OPENDOOR0&Return=0&CMD=AC_UNLOCK',
      'ID=4',
      'Return=0',
      'CMD=Shell',
      'Content=Tue Mar 24 16:12:26 GMT 2026',
      'ID=5&Return=-1002&CMD=USER',
      'ID=6&Return=-10&CMD=DATA',
    ].join('\n'),
  );
  t.same(
    d.executed().map((c) => [c.id, c.returnCode, c.cmd]),
    [
      ['1', 0, 'DATA'],
      ['2', 0, 'DATA'],
      ['OPENDOOR0', 0, 'AC_UNLOCK'],
      ['4', 0, 'Shell'],
      ['5', -1002, 'USER'],
      ['6', -10, 'DATA'],
    ],
  );
  t.equal(d.executed()[1]?.command, `DATA UPDATE FINGERTMP PIN=1001\tFID=0\tSize=28\tValid=1\tTMP=${TMP}`, 'verbatim');
  t.match(d.users().get('1001'), { name: 'Ann Lee', card: '123456789' });
  t.match(d.templates('1001'), [{ table: 'FINGERTMP', no: 0, tmp: TMP }]);
  t.equal(d.doors()[0]?.pulses, 1);
  t.same(seen, ['1', '2', 'OPENDOOR0', '4', '5', '6']);
  t.same(d.stats.commandsByCode, { 0: 4, '-1002': 1, '-10': 1 });
  t.equal(d.stats.errors, 6, 'a throwing listener is counted, not fatal');
  off();
  peer.enqueue('SIMV2B', 'C:7:INFO');
  await d.pollOnce();
  t.equal(seen.length, 6, 'unsubscribed');
  t.match(
    lastOf(peer, '/iclock/devicecmd').body,
    /^ID=7&Return=0&CMD=INFO\n~DeviceName=BioGate Sim Attendance\nMAC=.*\nTransactionCount=0\nFPCount=1\nUserCount=1\n/,
  );
});

t.test('DATA QUERY uploads come before the result [PUSH-v2 §6.10]', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2C');
  await d.handshake();
  t.equal(await d.punch('1001', '2026-02-05 08:00:00'), true);
  t.equal(await d.punch('1001', '2026-02-05T17:30:00', 1, 15), true, 'T form accepted');
  t.equal(await d.punch('1002', new Date(Date.UTC(2026, 1, 6, 7, 0, 0))), true, 'a Date is written in device time (TimeZone=1)');
  const att = peer.find('/iclock/cdata', { table: 'ATTLOG' });
  t.same(
    att.map((r) => [r.rawQuery, r.body]),
    [
      ['SN=SIMV2C&table=ATTLOG&Stamp=9999', '1001\t2026-02-05 08:00:00\t0\t1\t0\t0\t0\n'],
      ['SN=SIMV2C&table=ATTLOG&Stamp=9999', '1001\t2026-02-05 17:30:00\t1\t15\t0\t0\t0\n'],
      ['SN=SIMV2C&table=ATTLOG&Stamp=9999', '1002\t2026-02-06 08:00:00\t0\t1\t0\t0\t0\n'],
    ],
  );
  t.same(
    d.attendanceLog().map((a) => a.index),
    [1, 2, 3],
  );
  peer.enqueue(
    'SIMV2C',
    'C:10:DATA UPDATE USERINFO PIN=1001\tName=Ann',
    'C:11:DATA QUERY USERINFO',
    'C:12:DATA QUERY ATTLOG StartTime=2026-02-05 00:00:00\tEndTime=2026-02-05 23:59:59',
    'C:13:DATA QUERY ATTLOG StartTime=2027-01-01 00:00:00\tEndTime=2027-01-02 00:00:00',
  );
  await d.pollOnce();
  const poll = lastOf(peer, '/iclock/getrequest');
  t.same(
    after(peer, poll).map((r) => [r.path, r.query.get('table'), r.body]),
    [
      ['/iclock/cdata', 'OPERLOG', 'USER PIN=1001\tName=Ann\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=\tVerify=0\tViceCard=\n'],
      ['/iclock/cdata', 'ATTLOG', '1001\t2026-02-05 08:00:00\t0\t1\t0\t0\t0\n1001\t2026-02-05 17:30:00\t1\t15\t0\t0\t0\n'],
      ['/iclock/devicecmd', null, 'ID=10&Return=0&CMD=DATA\nID=11&Return=0&CMD=DATA\nID=12&Return=0&CMD=DATA\nID=13&Return=-1&CMD=DATA'],
    ],
  );
  await t.rejects(d.punch('a b', NOW), TypeError);
  await t.rejects(d.punch('1', '05.02.2026 08:00'), TypeError);
});

t.test('REBOOT ends the batch; the device re-handshakes [PUSH-v2 §7.3]', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2D');
  await d.handshake();
  await d.pollOnce();
  peer.enqueue('SIMV2D', 'C:20:AC_UNALARM', 'C:21:REBOOT', 'C:22:CLEAR LOG');
  t.equal(await d.pollOnce(), 2);
  const cmd = lastOf(peer, '/iclock/devicecmd');
  t.equal(cmd.body, 'ID=20&Return=0&CMD=AC_UNALARM\nID=21&Return=0&CMD=REBOOT');
  t.same(
    after(peer, cmd)
      .map((r) => `${r.method} ${r.path}?${r.rawQuery}`)
      .slice(0, 2),
    ['GET /iclock/cdata?SN=SIMV2D&options=all&pushver=2.4.1&language=69', 'POST /iclock/cdata?SN=SIMV2D&table=options&Stamp=9999'],
  );
  t.same(d.executed().at(-1), { id: '22', command: 'CLEAR LOG', returnCode: null, cmd: null }, 'received, lost');
  t.match(d.stats, { commandsLost: 1, handshakes: 2, commandsReceived: 3 });
  await d.pollOnce();
  t.match(lastOf(peer, '/iclock/getrequest').rawQuery, /&INFO=/, 'INFO again after the restart');
});

t.test('CHECK re-reads the options; ATTLOGStamp=0 re-uploads all attendance (fixture A32c)', T, async (t) => {
  let handshakes = 0;
  const { peer, d } = await setup(t, 'SIMV2E', {
    route: (r) =>
      r.query.get('options') === 'all' && ++handshakes === 2
        ? { body: 'GET OPTION FROM: SIMV2E\nATTLOGStamp=0\nDelay=1\nTimeZone=0\nRealtime=1' }
        : undefined,
  });
  await d.handshake();
  await d.punch('1', '2026-02-01 08:00:00');
  await d.punch('2', '2026-02-01 09:00:00');
  peer.enqueue('SIMV2E', 'C:3:CHECK');
  t.equal(await d.pollOnce(), 1);
  const cmd = lastOf(peer, '/iclock/devicecmd');
  t.equal(cmd.body, 'ID=3&Return=0&CMD=CHECK');
  t.same(
    after(peer, cmd).map((r) => [r.path, r.query.get('options') ?? r.query.get('table'), r.body]),
    [
      ['/iclock/cdata', 'all', ''],
      ['/iclock/cdata', 'ATTLOG', '1\t2026-02-01 08:00:00\t0\t1\t0\t0\t0\n2\t2026-02-01 09:00:00\t0\t1\t0\t0\t0\n'],
    ],
    'no options upload without PushOptionsFlag; every record again',
  );
  t.equal(d.session().utcOffsetMinutes, 0);
});

t.test('uploads the server does not acknowledge are re-sent [PUSH-v2 §2.2]', T, async (t) => {
  const answers = [{ status: 500, body: 'busy' }, { body: 'ERROR' }];
  const { peer, d } = await setup(t, 'SIMV2F', { route: (r) => (r.query.get('table') === 'ATTLOG' ? answers.shift() : undefined) });
  await d.handshake();
  t.equal(await d.punch('1', '2026-02-01 08:00:00'), false);
  t.equal(await d.punch('2', '2026-02-01 08:01:00'), false);
  await d.pollOnce();
  const att = peer.find('/iclock/cdata', { table: 'ATTLOG' });
  t.same(
    att.map((r) => r.body),
    [
      '1\t2026-02-01 08:00:00\t0\t1\t0\t0\t0\n',
      '1\t2026-02-01 08:00:00\t0\t1\t0\t0\t0\n2\t2026-02-01 08:01:00\t0\t1\t0\t0\t0\n',
      '1\t2026-02-01 08:00:00\t0\t1\t0\t0\t0\n2\t2026-02-01 08:01:00\t0\t1\t0\t0\t0\n',
    ],
    'merged and re-sent until OK',
  );
  t.match(d.stats, { uploadsFailed: 2, punches: 2 });
  t.match(d.stats.lastError, /ATTLOG|table upload answered HTTP 200/);
});

t.test('Realtime=0 keeps records for the next cycle; LOG uploads now', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2G', { handshakeExtra: ['Realtime=0'] });
  t.equal(await d.punch('1', '2026-02-01 08:00:00'), false, 'no session yet: queued');
  await d.handshake();
  t.equal(d.session().realtime, false);
  t.equal(peer.find('/iclock/cdata', { table: 'ATTLOG' }).length, 1, 'the handshake flushed the queue');
  t.equal(await d.punch('2', '2026-02-01 09:00:00'), false);
  t.equal(peer.find('/iclock/cdata', { table: 'ATTLOG' }).length, 1);
  peer.enqueue('SIMV2G', 'C:1:LOG');
  await d.pollOnce();
  t.equal(peer.find('/iclock/cdata', { table: 'ATTLOG' }).length, 2);
});

t.test('remote enrolment: result first, then the template [COMMANDS §4.16]', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2H', {}, { enrollDelayMs: 10 });
  peer.enqueue('SIMV2H', 'C:1:DATA UPDATE USERINFO PIN=1', 'C:2:ENROLL_FP PIN=1\tFID=3\tRETRY=3\tOVERWRITE=1');
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=1&Return=0&CMD=DATA\nID=2&Return=0&CMD=ENROLL_FP');
  const up = await peer.waitFor((r) => r.query.get('table') === 'OPERLOG');
  const fp = d.templates('1')[0];
  t.match(fp, { table: 'FINGERTMP', no: 3, majorVer: 10 });
  t.equal(up.body, `OPLOG 6\t0\t2026-03-24 17:12:26\t1\t0\t3\t512\nFP PIN=1\tFID=3\tSize=512\tValid=1\tTMP=${fp?.tmp ?? ''}\n`);
  t.equal(d.stats.templatesEnrolled, 1);

  const face = await setup(t, 'SIMV2I', {}, { enrollDelayMs: 10, fpVersion: 12, faceSupport: true });
  face.peer.enqueue(
    'SIMV2I',
    'C:1:DATA UPDATE USERINFO PIN=5',
    'C:2:ENROLL_BIO TYPE=9\tPIN=5\tCardNo=\tRETRY=3\tOVERWRITE=1',
    'C:3:ENROLL_FP PIN=5\tFID=1\tRETRY=3\tOVERWRITE=1',
  );
  await face.d.pollOnce();
  const bio = await face.peer.waitFor((r) => r.query.get('table') === 'BIODATA' && r.body.includes('Type=1'));
  t.match(bio.body, /^BIODATA Pin=5\tNo=1\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=[A-Za-z0-9+/=]+\n$/);
  t.match(
    (await face.peer.waitFor((r) => r.body.includes('Type=9'))).body,
    /^BIODATA Pin=5\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=40\tMinorVer=1\t/,
  );
});

t.test('local enrolment of a new PIN announces the user first', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2J');
  await d.handshake();
  t.equal(await d.enroll('77', 2), true);
  const up = lastOf(peer, '/iclock/cdata');
  t.match(
    up.body,
    /^OPLOG 30\t0\t2026-03-24 17:12:26\t77\t0\t0\t0\nUSER PIN=77\tName=\tPri=0\t.*\nOPLOG 6\t0\t2026-03-24 17:12:26\t77\t0\t2\t512\nFP PIN=77\tFID=2\tSize=512\tValid=1\tTMP=/,
  );
  t.ok(d.users().has('77'));
  await t.rejects(d.enroll('7 7', 1), TypeError);
  await t.rejects(d.enroll('77', 10), TypeError);
  await t.rejects(d.enroll('77', 1.5), TypeError);
  await t.rejects(d.enroll('77', 0, 9), TypeError, 'no face sensor');
  const full = await setup(t, 'SIMV2K', {}, { maxUsers: 0 });
  t.equal(await full.d.enroll('1', 0), false, 'no room for the user');
  const noTemplates = await setup(t, 'SIMV2L', {}, { maxTemplates: 0 });
  t.equal(await noTemplates.d.enroll('1', 0), false, 'no room for the template');
});

t.test('stop() aborts a held long poll and resolves when idle', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2M', { holdMs: 5000 });
  d.start();
  d.start();
  await peer.waitFor((r) => r.path === '/iclock/getrequest');
  const t0 = Date.now();
  await d.stop();
  t.ok(Date.now() - t0 < 1000, 'did not wait for the hold');
  t.equal(d.stats.online, false);
  const polling = d.pollOnce();
  await peer.waitFor((r) => r.path === '/iclock/getrequest' && peer.find('/iclock/getrequest').length === 2);
  const stopped = d.stop();
  const err = await polling.catch((e: unknown) => e);
  await stopped;
  t.ok(err instanceof SimulatorError && err.code === 'aborted', 'a manual poll is aborted too');
});

t.test('start(): the loop polls at the interval; fast polls again after results', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2N', {}, { pollDelayMs: 60_000, fast: true });
  for (let i = 1; i <= 3; i++) peer.enqueue('SIMV2N', `C:${i}:AC_UNALARM`);
  d.start();
  await peer.waitFor(() => peer.find('/iclock/getrequest').length === 4, 3000);
  t.equal(d.session().pollDelayMs, 60_000);
  await d.stop();
  t.equal(peer.find('/iclock/devicecmd').length, 3);
  t.equal(peer.find('/iclock/getrequest').length, 4, 'the idle poll then waits the full interval');
});

t.test('failures are counted, kept and retried', T, async (t) => {
  let cmdFailures = 1;
  const { peer, d } = await setup(t, 'SIMV2O', {
    route: (r) => {
      if (r.path === '/iclock/devicecmd' && cmdFailures-- > 0) return { status: 500 };
      if (r.path === '/iclock/devicecmd') return { body: 'FINE' };
      if (r.query.get('table') === 'options') return { status: 500 };
      return undefined;
    },
  });
  await d.handshake();
  t.match(d.session().warnings, ['the server did not acknowledge the device parameters (table=options)']);
  peer.enqueue('SIMV2O', 'C:1:AC_UNALARM', 'junk line');
  await d.pollOnce();
  t.equal(d.stats.resultPosts, 0, 'devicecmd failed');
  await d.pollOnce();
  const posts = peer.find('/iclock/devicecmd');
  t.same(
    posts.map((r) => r.body),
    ['ID=1&Return=0&CMD=AC_UNALARM', 'ID=1&Return=0&CMD=AC_UNALARM'],
    'posted again before the next poll',
  );
  t.equal(d.stats.resultPosts, 1);
  t.match(d.session().warnings, [/table=options/, /not C:<id>:<command>.*junk line/, /devicecmd reply is not OK/]);
  t.equal(d.stats.protocolWarnings, 3);
});

t.test('bad handshakes and polls', T, async (t) => {
  const statuses: Record<string, number> = {};
  const { peer, d } = await setup(t, 'SIMV2P', {
    route: (r) => {
      const s = statuses[r.path];
      if (s !== undefined) return { status: s };
      if (r.query.get('options') === 'all' && statuses.wrong === 1) return { body: 'GET OPTION FROM: OTHER' };
      if (r.query.get('options') === 'all' && statuses.empty === 1) return { body: '' };
      if (r.query.get('options') === 'all' && statuses.bare === 1)
        return { body: 'GET OPTION FROM: SIMV2P\nDelay=x\nTimeZone=soon', noDate: true };
      return undefined;
    },
  });
  statuses['/iclock/cdata'] = 500;
  await t.rejects(d.handshake(), { code: 'http' });
  await t.rejects(d.pollOnce(), { code: 'http' }, 'pollOnce handshakes first');
  delete statuses['/iclock/cdata'];
  statuses.wrong = 1;
  await t.rejects(d.handshake(), { code: 'protocol', message: /GET OPTION FROM: SIMV2P/ });
  delete statuses.wrong;
  statuses.empty = 1;
  await t.rejects(d.handshake(), { code: 'protocol', message: /: ""$/ });
  delete statuses.empty;
  statuses.bare = 1;
  await d.handshake();
  t.match(d.session().warnings, [/no Date header/, /unreadable TimeZone=soon/]);
  t.equal(d.session().pollDelayMs, 10_000, 'vendor default when Delay is unreadable');
  t.equal(d.session().utcOffsetMinutes, 0);
  delete statuses.bare;
  statuses['/iclock/getrequest'] = 503;
  await t.rejects(d.pollOnce(), { code: 'http' });
  t.equal(d.stats.online, false);
  t.match(d.stats, { handshakeFailures: 4, handshakes: 1 });
  delete statuses['/iclock/getrequest'];
  await d.handshake();
  t.match(d.session().warnings.at(-1), /unreadable/, 'earlier warnings kept');
  t.ok(peer.requests.length > 0);
  const noTz = await setup(t, 'SIMV2Z', { noTimeZone: true }, { utcOffsetMinutes: -180 });
  await noTz.d.handshake();
  t.same(noTz.d.session().warnings, ['handshake reply has no TimeZone [PUSH-v2 §4.5]']);
  t.equal(noTz.d.session().utcOffsetMinutes, -180, 'the device keeps its own zone');
});

t.test('timeouts and unreachable servers', T, async (t) => {
  const { d } = await setup(t, 'SIMV2Q', { holdMs: 3000 }, { requestTimeoutMs: 150 });
  await d.handshake();
  t.equal(d.session().requestTimeoutMs, 150);
  await t.rejects(d.pollOnce(), { code: 'timeout' });
  const vanishing = await startPeer();
  const cut = createSimulatedDevice({ url: vanishing.url, sn: 'SIMV2Y', protocol: 'v2' });
  await cut.handshake();
  await vanishing.close();
  t.equal(await cut.punch('1', '2026-02-01 08:00:00'), false);
  t.match(cut.stats, { uploadsSent: 2, uploadsFailed: 1, errors: 1 });
  t.match(cut.stats.lastError, /POST \/iclock\/cdata\?SN=SIMV2Y&table=ATTLOG&Stamp=9999: /);
  const gone = await startPeer();
  await gone.close();
  const lost = createSimulatedDevice({ url: gone.url, sn: 'SIMV2R', protocol: 'v2', retryDelayMs: 10 });
  await t.rejects(lost.handshake(), { code: 'network' });
  lost.start();
  await new Promise((r) => setTimeout(r, 100));
  await lost.stop();
  t.ok(lost.stats.handshakeFailures >= 3, 'the loop retries after retryDelayMs');
});

t.test('failure injection: forced codes and a seeded fail rate', T, async (t) => {
  const forced = await setup(t, 'SIMV2S', {}, { returnCodes: { 'DATA QUERY ATTLOG': -1002, ENROLL_FP: 4 } });
  forced.peer.enqueue(
    'SIMV2S',
    'C:1:DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00\tEndTime=2026-02-10 23:59:59',
    'C:2:ENROLL_FP PIN=1\tFID=0',
    'C:3:INFO',
  );
  await forced.d.pollOnce();
  t.match(
    lastOf(forced.peer, '/iclock/devicecmd').body,
    /^ID=1&Return=-1002&CMD=DATA\nID=2&Return=4&CMD=ENROLL_FP\nID=3&Return=0&CMD=INFO\n/,
  );
  const flaky = await setup(t, 'SIMV2T', {}, { failRate: 1, seed: 5 });
  flaky.peer.enqueue('SIMV2T', 'C:1:REBOOT', 'C:2:INFO');
  t.equal(await flaky.d.pollOnce(), 2, 'a failed REBOOT does not restart');
  t.equal(lastOf(flaky.peer, '/iclock/devicecmd').body, 'ID=1&Return=-1005&CMD=REBOOT\nID=2&Return=-1005&CMD=INFO');
});

t.test('UPGRADE downloads through /iclock/file, then restarts [COMMANDS §4.22]', T, async (t) => {
  const firmware = Buffer.from('simulated firmware');
  const md5 = createHash('md5').update(firmware).digest('hex');
  const { peer, d } = await setup(t, 'SIMV2U', {
    route: (r) => {
      if (r.path === '/iclock/file') return { body: firmware.toString('base64') };
      if (r.path === '/direct/fw.bin') return { body: firmware.toString('latin1') };
      return undefined;
    },
  });
  peer.enqueue('SIMV2U', `C:40:UPGRADE checksum=${md5},url=fw/emfw.cfg,size=${firmware.length}`);
  await d.pollOnce();
  t.match(peer.find('/iclock/file')[0], { method: 'GET', rawQuery: 'SN=SIMV2U&url=fw%2Femfw.cfg' });
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=40&Return=0&CMD=UPGRADE');
  t.equal(d.stats.handshakes, 2, 'restarted');
  peer.enqueue(
    'SIMV2U',
    `C:41:UPGRADE checksum=${md5},size=${firmware.length},url=/direct/fw.bin,supportsubcontracting=1`,
    `C:42:UPGRADE checksum=${md5},size=${firmware.length},url=/nowhere,supportsubcontracting=1`,
  );
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=41&Return=0&CMD=UPGRADE', 'method 3 fetched the URL itself; 42 was lost');
  const gone = await startPeer();
  await gone.close();
  peer.enqueue(
    'SIMV2U',
    `C:43:UPGRADE checksum=${md5},size=1,url=/nowhere,supportsubcontracting=1`,
    `C:44:UPGRADE checksum=${md5},size=1,url=${gone.url}/fw.bin,supportsubcontracting=1`,
  );
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=43&Return=-1008&CMD=UPGRADE\nID=44&Return=-1008&CMD=UPGRADE', '404 and unreachable');
});

t.test('device state accessors, options and signals', T, async (t) => {
  const ac = new AbortController();
  const { peer, d } = await setup(t, 'SIMV2V', {}, { signal: ac.signal, uploadOptions: false, utcOffsetMinutes: 120 });
  t.equal(d.session().utcOffsetMinutes, 120, 'own setting until the handshake says otherwise');
  peer.enqueue('SIMV2V', 'C:1:SET OPTION LockOn=5');
  await d.pollOnce();
  t.equal(peer.find('/iclock/cdata', { table: 'options' }).length, 0, 'uploadOptions: false');
  t.same([...d.deviceOptions()], [['LockOn', '5']]);
  t.same(d.authorizations('1'), []);
  t.equal(d.sn, 'SIMV2V');
  t.equal(d.protocol, 'v2');
  d.start();
  ac.abort();
  await peer.waitFor(() => true);
  await new Promise((r) => setTimeout(r, 50));
  t.equal(d.stats.online, false, 'the signal stopped it');
  d.start();
  t.equal(d.stats.online, false, 'an aborted signal keeps it stopped');
  t.throws(() => createSimulatedDevice({ url: 'ftp://x', sn: 'A', protocol: 'v2' }), TypeError);
  t.throws(() => createSimulatedDevice({ url: 'not a url', sn: 'A', protocol: 'v2' }), TypeError);
  t.throws(() => createSimulatedDevice({ url: peer.url, sn: 'A B', protocol: 'v2' }), TypeError);
  t.throws(() => createSimulatedDevice({ url: peer.url, sn: 'A', protocol: 'v4' as 'v2' }), TypeError);
});

t.test('bounded: the upload queue, results and the executed list', T, async (t) => {
  const { peer, d } = await setup(
    t,
    'SIMV2W',
    { route: (r) => (r.path === '/iclock/devicecmd' ? { status: 500 } : undefined) },
    { maxAttendance: 10 },
  );
  for (let i = 0; i < 1001; i++) await d.punch('1', '2026-02-01 08:00:00');
  t.equal(d.stats.uploadsDropped, 1);
  t.equal(d.attendanceLog().length, 10);
  const lines = Array.from({ length: 11_001 }, (_, i) => `C:${i}:AC_UNALARM`);
  peer.enqueue('SIMV2W', ...lines);
  t.equal(await d.pollOnce(), 11_001);
  t.equal(d.executed().length, 10_000);
  t.equal(d.executed()[0]?.id, '1001');
  t.equal(lastOf(peer, '/iclock/devicecmd').body.split('\n').length, 1000, 'at most 1000 pending results');
  t.equal(peer.find('/iclock/cdata', { table: 'ATTLOG' }).length, 5, '1000 queued records in requests of 200 lines');
});

t.test('requests cut short by stop() are not errors', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV2X', { stall: (r) => r.query.get('table') === 'ATTLOG' });
  await d.handshake();
  const punched = d.punch('1', '2026-02-01 08:00:00');
  await peer.waitFor((r) => r.query.get('table') === 'ATTLOG');
  await d.stop();
  t.equal(await punched, false);
  t.match(d.stats, { errors: 0, uploadsFailed: 0, uploadsSent: 1 }, 'only the options upload was sent');
});

t.test('onCommand option, pending enrolments at stop, bounded warnings, the real clock', T, async (t) => {
  const heard: string[] = [];
  const peer = await startPeer();
  // no `now`: the device uses the real clock
  const d = createSimulatedDevice({
    url: peer.url,
    sn: 'SIMV2HK',
    protocol: 'v2',
    onCommand: (c) => {
      heard.push(c.id);
      if (c.id === '2') throw 'not an Error';
    },
  });
  t.teardown(async () => {
    await d.stop();
    await peer.close();
  });
  peer.enqueue(
    'SIMV2HK',
    'C:1:DATA UPDATE USERINFO PIN=1',
    'C:2:ENROLL_FP PIN=1\tFID=0\tOVERWRITE=1',
    ...Array.from({ length: 51 }, (_, i) => `junk ${i}`),
  );
  await d.pollOnce();
  t.same(heard, ['1', '2']);
  t.equal(d.stats.lastError, 'not an Error');
  t.equal(d.session().warnings.length, 50, 'the newest 50 warnings are kept');
  t.match(d.session().warnings[0], /junk 1"$/);
  t.equal(d.stats.protocolWarnings, 51);
  await d.stop(); // before the default 300 ms enrolment delay ends
  await new Promise((r) => setTimeout(r, 400));
  t.same(d.templates('1'), [], 'a pending enrolment is cancelled by stop()');
  t.equal(peer.find('/iclock/cdata', { table: 'OPERLOG' }).length, 0);
  t.equal(await d.enroll('2', 1), true);
  t.match(lastOf(peer, '/iclock/cdata').body, new RegExp(`^OPLOG 30\\t0\\t${new Date().getUTCFullYear()}-`), 'stamped with the real clock');
});
