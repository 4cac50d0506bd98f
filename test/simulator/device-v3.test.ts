// The simulated v3 terminal against a scripted server over real HTTP: registration, cookie token,
// querydata answers, rtlog / tabledata uploads and their re-sends.

import { createHash } from 'node:crypto';
import t from 'tap';
import type { Test } from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import type { SimulatedDevice, SimulatedDeviceOptions } from '../../src/simulator/index.js';
import { PEER_REGISTRY_CODE, PEER_SESSION_ID, startPeer } from './fixtures/peer.js';
import type { Peer, PeerOptions, RecordedRequest } from './fixtures/peer.js';

const T = { timeout: 15_000 };
const NOW = new Date(Date.UTC(2026, 2, 24, 16, 12, 26));
const token = (sn: string): string => createHash('md5').update(`${PEER_REGISTRY_CODE}${sn}${PEER_SESSION_ID}`).digest('hex');

async function setup(
  t: Test,
  sn: string,
  peerOpts: PeerOptions = {},
  devOpts: Partial<SimulatedDeviceOptions> = {},
): Promise<{ peer: Peer; d: SimulatedDevice }> {
  const peer = await startPeer(peerOpts);
  const d = createSimulatedDevice({ url: peer.url, sn, protocol: 'v3', now: () => NOW, retryDelayMs: 20, ...devOpts });
  t.teardown(async () => {
    await d.stop();
    await peer.close();
  });
  return { peer, d };
}

const lastOf = (peer: Peer, path: string): RecordedRequest => peer.find(path).at(-1) as RecordedRequest;
const after = (peer: Peer, r: RecordedRequest): RecordedRequest[] => peer.requests.slice(peer.requests.indexOf(r) + 1);

t.test('first contact, registry, push, options [PUSH-v3 §3]', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV3A', {}, { commKey: 'k1' });
  await d.handshake();
  const [first, registry, push, options] = peer.requests;
  t.match(first, {
    method: 'GET',
    path: '/iclock/cdata',
    rawQuery: 'SN=SIMV3A&options=all&pushver=3.1.2&DeviceType=acc&PushOptionsFlag=1&language=69&pushcommkey=k1',
  });
  t.match(registry, { method: 'POST', path: '/iclock/registry', rawQuery: 'SN=SIMV3A' });
  t.equal(registry?.headers['content-type'], 'application/push;charset=UTF-8');
  t.match(
    registry?.body,
    /^DeviceType=acc,~DeviceName=BioGate Sim Access,FirmVer=BGSIM Ver3\.3\.12,PushVersion=Ver 3\.1\.2S-20250616,MAC=.*,LockCount=1,.*,CommType=ethernet,MaxPackageSize=2048000,authKey=k1$/,
  );
  t.match(push, { method: 'POST', path: '/iclock/push', rawQuery: 'SN=SIMV3A', body: '' });
  t.equal(push?.headers.cookie, undefined, 'no token before the first SessionID');
  t.match(options, { method: 'POST', path: '/iclock/cdata', rawQuery: 'SN=SIMV3A&table=options' });
  // [PUSH-v3 §5] every request after /iclock/push carries the token
  t.equal(options?.headers.cookie, `token=${token('SIMV3A')}`);
  t.match(d.session(), {
    established: true,
    registryCode: PEER_REGISTRY_CODE,
    sessionId: PEER_SESSION_ID,
    token: token('SIMV3A'),
    pollDelayMs: 1000,
    requestTimeoutMs: 10_000,
    utcOffsetMinutes: 0,
  });
  t.same(d.session().warnings, []);
  await d.pollOnce();
  const poll = lastOf(peer, '/iclock/getrequest');
  t.equal(poll.rawQuery, 'SN=SIMV3A', 'no INFO in v3');
  t.equal(poll.headers.cookie, `token=${token('SIMV3A')}`);
});

t.test('a registered device gets its configuration on first contact [PUSH-v3 §4.3]', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV3B', { registered: ['SIMV3B'] }, { uploadOptions: false });
  await d.handshake();
  t.same(
    peer.requests.map((r) => r.path),
    ['/iclock/cdata'],
    'no registry, no push, no options',
  );
  t.match(d.session(), { registryCode: PEER_REGISTRY_CODE, sessionId: PEER_SESSION_ID });
});

t.test('cookies the server sets are sent back; a server token wins', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV3C', {
    route: (r) => {
      if (r.path === '/iclock/registry')
        return { body: 'RegistryCode=ABC123', headers: { 'set-cookie': ['JSESSIONID=xyz; Path=/', 'junk'] } };
      if (r.path === '/iclock/getrequest') return { body: 'OK', headers: { 'set-cookie': 'token=fromserver; Path=/' } };
      return undefined;
    },
  });
  await d.handshake();
  t.equal(lastOf(peer, '/iclock/push').headers.cookie, 'JSESSIONID=xyz');
  const computed = createHash('md5').update(`ABC123SIMV3C${PEER_SESSION_ID}`).digest('hex');
  t.equal(lastOf(peer, '/iclock/cdata').headers.cookie, `JSESSIONID=xyz; token=${computed}`);
  await d.pollOnce();
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/getrequest').headers.cookie, 'JSESSIONID=xyz; token=fromserver');
});

t.test('registration failures', T, async (t) => {
  const mode: { [k: string]: boolean } = {};
  const { d } = await setup(t, 'SIMV3D', {
    route: (r) => {
      if (mode.first500 === true && r.path === '/iclock/cdata') return { status: 500 };
      if (mode.odd === true && r.path === '/iclock/cdata') return { body: 'GET OPTION FROM: SIMV3D' };
      if (mode.empty === true && r.path === '/iclock/cdata') return { body: '' };
      if (mode.refuse === true && r.path === '/iclock/registry') return { status: 406 };
      if (mode.reg500 === true && r.path === '/iclock/registry') return { status: 500 };
      if (mode.noCode === true && r.path === '/iclock/registry') return { body: 'Hello' };
      if (mode.push500 === true && r.path === '/iclock/push') return { status: 500 };
      return undefined;
    },
  });
  const expect = async (flag: string, code: string): Promise<void> => {
    mode[flag] = true;
    await t.rejects(d.handshake(), { code }, flag);
    mode[flag] = false;
  };
  await expect('first500', 'http');
  await expect('odd', 'protocol');
  await expect('empty', 'protocol');
  await expect('refuse', 'refused');
  await expect('reg500', 'http');
  await expect('noCode', 'protocol');
  await expect('push500', 'http');
  t.equal(d.stats.handshakeFailures, 7);
  await d.handshake();
  t.equal(d.stats.online, true);
});

t.test('incomplete configurations are warned about', T, async (t) => {
  let registered = false;
  const { d } = await setup(t, 'SIMV3E', {
    route: (r) => {
      if (r.path === '/iclock/push') return { body: 'RequestDelay=2\nRealtime=0', noDate: true };
      if (r.path === '/iclock/cdata' && r.query.get('options') === 'all' && registered) return { body: 'registry=ok\nRequestDelay=3' };
      if (r.path === '/iclock/registry') registered = true;
      return undefined;
    },
  });
  await d.handshake();
  t.match(d.session(), { sessionId: null, token: null, realtime: false, pollDelayMs: 2000, registryCode: PEER_REGISTRY_CODE });
  t.same(d.session().warnings, ['configuration reply has no Date header [PUSH-v3 §4.4]', 'configuration has no SessionID [PUSH-v3 §4.1]']);
  await d.handshake();
  t.match(d.session(), { registryCode: PEER_REGISTRY_CODE, pollDelayMs: 3000 }, 'the stored RegistryCode is kept');
  t.match(d.session().warnings.slice(2), ['registered first-contact reply has no RegistryCode [PUSH-v3 §4.3]', /no SessionID/]);
  const fresh = createSimulatedDevice({ url: 'http://127.0.0.1:1', sn: 'SIMV3F', protocol: 'v3' });
  t.equal(fresh.session().pollDelayMs, 30_000, 'vendor RequestDelay default');
  t.equal(fresh.session().retryDelayMs, 30_000);
});

t.test('DATA QUERY / COUNT / GET OPTIONS answer on querydata first (fixture B17)', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV3G');
  peer.enqueue(
    'SIMV3G',
    'C:295:DATA UPDATE user CardNo=\tPin=1\tPassword=234\tGroup=0\tStartTime=0\tEndTime=0\tName=\tPrivilege=0',
    'C:296:DATA UPDATE userauthorize Pin=1\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1\tDevID=1',
    'C:288:DATA COUNT user',
    'C:415:DATA QUERY tablename=user,fielddesc=*,filter=*',
    'C:9:GET OPTIONS ~SerialNumber,FirmVer',
  );
  t.equal(await d.pollOnce(), 5);
  const poll = lastOf(peer, '/iclock/getrequest');
  t.same(
    after(peer, poll).map((r) => [r.path, r.rawQuery, r.body]),
    [
      ['/iclock/querydata', 'SN=SIMV3G&type=count&cmdid=288&tablename=user&count=1&packcnt=1&packidx=1', 'user=1'],
      [
        '/iclock/querydata',
        'SN=SIMV3G&type=tabledata&cmdid=415&tablename=user&count=1&packcnt=1&packidx=1',
        'user uid=1\tcardno=\tpin=1\tpassword=234\tgroup=0\tstarttime=0\tendtime=0\tname=\tprivilege=0\tdisable=0\tverify=0',
      ],
      [
        '/iclock/querydata',
        'SN=SIMV3G&type=options&cmdid=9&tablename=options&count=1&packcnt=1&packidx=1',
        '~SerialNumber=SIMV3G,FirmVer=BGSIM Ver3.3.12',
      ],
      [
        '/iclock/devicecmd',
        'SN=SIMV3G',
        [
          'ID=295&Return=0&CMD=DATA UPDATE',
          'ID=296&Return=0&CMD=DATA UPDATE',
          'ID=288&Return=0&CMD=DATA COUNT',
          'ID=415&Return=1&CMD=DATA QUERY',
          'ID=9&Return=0&CMD=GET OPTIONS',
        ].join('\n'),
      ],
    ],
  );
  t.same(d.authorizations('1'), [{ pin: '1', timezoneId: 1, doorMask: 1 }]);
  t.equal(lastOf(peer, '/iclock/querydata').headers['content-type'], 'application/push;charset=UTF-8');
});

t.test('querydata replies: wrong body is a warning, HTTP error fails the command (-726)', T, async (t) => {
  let status = 200;
  // [PUSH-v3 §10.2] corrected: a DATA COUNT packet is answered OK; the old inferred `user=1` is now the wrong body
  const { peer, d } = await setup(t, 'SIMV3H', { route: (r) => (r.path === '/iclock/querydata' ? { status, body: 'user=1' } : undefined) });
  peer.enqueue('SIMV3H', 'C:1:DATA COUNT user');
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=1&Return=0&CMD=DATA COUNT');
  t.match(d.stats.lastError, /querydata upload answered HTTP 200: "user=1"/);
  status = 500;
  peer.enqueue('SIMV3H', 'C:2:DATA COUNT user');
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=2&Return=-726&CMD=DATA COUNT');
});

t.test('punches go out as rtlog; non-OK replies are re-sent [PUSH-v3 §7.2]', T, async (t) => {
  const replies = ['ERROR'];
  const { peer, d } = await setup(t, 'SIMV3I', {
    route: (r) => (r.query.get('table') === 'rtlog' && replies.length > 0 ? { body: replies.shift() as string } : undefined),
  });
  await d.handshake();
  t.equal(await d.punch('1', '2026-03-24 16:12:26', 0, 15), false);
  t.equal(await d.punch('2', new Date(Date.UTC(2026, 2, 24, 16, 13, 0)), 1), true);
  const rt = peer.find('/iclock/cdata', { table: 'rtlog' });
  t.same(
    rt.map((r) => [r.rawQuery, r.body]),
    [
      ['SN=SIMV3I&table=rtlog', 'time=2026-03-24 16:12:26\tpin=1\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15\tindex=1'],
      [
        'SN=SIMV3I&table=rtlog',
        'time=2026-03-24 16:12:26\tpin=1\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=15\tindex=1\n' +
          'time=2026-03-24 16:13:00\tpin=2\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=1\tindex=2',
      ],
    ],
  );
  t.equal(rt[0]?.headers.cookie, `token=${token('SIMV3I')}`);
  // acknowledged rtlog rows are no longer NewRecord
  peer.enqueue('SIMV3I', 'C:5:DATA QUERY tablename=transaction,fielddesc=*,filter=NewRecord');
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=5&Return=0&CMD=DATA QUERY');
});

t.test('enrolment uploads use tabledata and need `${table}=${n}` [PUSH-v3 §7.1, §7.4]', T, async (t) => {
  let plainOk = 1;
  const { peer, d } = await setup(
    t,
    'SIMV3J',
    {
      route: (r) => (r.query.get('tablename') === 'biodata' && plainOk-- > 0 ? { body: 'OK' } : undefined),
    },
    { faceSupport: true, enrollDelayMs: 10 },
  );
  peer.enqueue('SIMV3J', 'C:1:DATA UPDATE user Pin=1\tName=Ann', 'C:395:ENROLL_BIO type=9\tno=0\tpin=1\tretry=3\toverwrite=1');
  await d.pollOnce();
  t.equal(lastOf(peer, '/iclock/devicecmd').body, 'ID=1&Return=0&CMD=DATA UPDATE\nID=395&Return=0&CMD=ENROLL_BIO');
  const first = await peer.waitFor((r) => r.query.get('tablename') === 'biodata');
  t.equal(first.rawQuery, 'SN=SIMV3J&table=tabledata&tablename=biodata&count=1');
  t.match(
    first.body,
    /^biodata pin=1\tno=0\tindex=0\tvalid=1\tduress=0\ttype=9\tmajorver=40\tminorver=1\tformat=0\ttmp=[A-Za-z0-9+/=]{1600}$/,
  );
  await new Promise((r) => setTimeout(r, 50));
  await d.pollOnce();
  t.equal(peer.find('/iclock/cdata', { tablename: 'biodata' }).length, 2, 'a plain OK is not an acknowledgement: re-sent');
  t.equal(d.stats.uploadsFailed, 1);

  t.equal(await d.enroll('9', 4), true);
  const tail = peer.find('/iclock/cdata', { table: 'tabledata' }).slice(-2);
  t.same(
    tail.map((r) => r.rawQuery),
    ['SN=SIMV3J&table=tabledata&tablename=user&count=1', 'SN=SIMV3J&table=tabledata&tablename=templatev10&count=1'],
  );
  t.match(tail[0]?.body, /^user uid=2\tcardno=\tpin=9\t/);
  t.match(tail[1]?.body, /^templatev10 size=512\tuid=2\tpin=9\tfingerid=4\tvalid=1\ttemplate=/);
});

t.test('CONTROL DEVICE 03000000 restarts: the device re-handshakes, registered now', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV3K');
  peer.enqueue('SIMV3K', 'C:221:CONTROL DEVICE 01010105', 'C:223:CONTROL DEVICE 03000000', 'C:224:CONTROL DEVICE 0900000000');
  t.equal(await d.pollOnce(), 2);
  const cmd = lastOf(peer, '/iclock/devicecmd');
  t.equal(cmd.body, 'ID=221&Return=0&CMD=CONTROL DEVICE\nID=223&Return=0&CMD=CONTROL DEVICE');
  t.same(
    after(peer, cmd).map((r) => r.path),
    ['/iclock/cdata', '/iclock/cdata'],
    'first contact (registry=ok) and options',
  );
  t.match(d.doors()[0], { relay: 'open', lastOpenSeconds: 5 });
  t.equal(d.stats.commandsLost, 1);
});

t.test('v3 long poll: a queued command answers the held request; stop() aborts it', T, async (t) => {
  const { peer, d } = await setup(t, 'SIMV3L', { holdMs: 4000 });
  await d.handshake();
  const polling = d.pollOnce();
  await peer.waitFor((r) => r.path === '/iclock/getrequest');
  peer.enqueue('SIMV3L', 'C:1:SET OPTIONS Door1Drivertime=5');
  t.equal(await polling, 1);
  t.same([...d.deviceOptions()], [['Door1Drivertime', '5']]);
  d.start();
  await peer.waitFor(() => peer.find('/iclock/getrequest').length === 2);
  const t0 = Date.now();
  await d.stop();
  t.ok(Date.now() - t0 < 1000);
});
