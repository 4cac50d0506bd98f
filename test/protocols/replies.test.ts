// Reply builders: handshake / configuration / registry [PUSH-v2 §4, PUSH-v3 §3–§4], TimeZone units
// [PUSH-v2 §4.5], upload and command replies, time replies, httpDate.
import t from 'tap';
import { ProtocolError } from '../../protocols/codec.js';
import { codecFor, httpDate, registryCodeFrom, sessionIdFrom, assumedToken } from '../../protocols/index.js';
import { encodeTimeZone } from '../../protocols/push-v2/time-zone.js';

const v2 = codecFor('2.0.0');
const v3 = codecFor('3.0.0');
const WINTER = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));
const SUMMER = new Date(Date.UTC(2026, 6, 15, 12, 0, 0));
const tzLine = (timeZone: string, now = WINTER, unit?: 'auto' | 'hours' | 'minutes' | 'hh:mm'): string =>
  /^TimeZone=(.*)$/m.exec(
    v2.replies.handshake({ sn: 'X', timeZone, now, ...(unit === undefined ? {} : { timeZoneUnit: unit }) }).body,
  )?.[1] ?? '';

t.test('TimeZone from an IANA zone and a date (PUSH-v2 §4.5)', async (t) => {
  t.equal(tzLine('Asia/Shanghai'), '8');
  t.equal(tzLine('UTC'), '0');
  t.equal(tzLine('America/New_York'), '-5');
  t.equal(tzLine('America/New_York', SUMMER), '-4', 'daylight saving follows `now`');
  t.equal(tzLine('Asia/Kolkata'), '330');
  t.equal(tzLine('Asia/Kathmandu'), '345');
  t.equal(tzLine('America/St_Johns'), '-210');
  t.equal(tzLine('Pacific/Auckland', SUMMER), '720');
  t.equal(tzLine('Pacific/Auckland', WINTER), '780');
  t.equal(tzLine('Pacific/Kiritimati'), '840');
  t.equal(tzLine('Etc/GMT+12'), '-720', '-12 h is outside -11…11: minutes');
  t.equal(tzLine('Asia/Shanghai', WINTER, 'minutes'), '480');
  t.equal(tzLine('Asia/Shanghai', WINTER, 'hours'), '8');
  t.equal(tzLine('Asia/Kolkata', WINTER, 'hours'), '330', 'no hour form for +05:30');
  t.equal(tzLine('America/New_York', WINTER, 'hh:mm'), '-05:00');
  t.equal(tzLine('Asia/Kolkata', WINTER, 'hh:mm'), '+05:30');
  t.equal(encodeTimeZone(-300), '-5');
  t.throws(() => v2.replies.handshake({ sn: 'X', timeZone: 'Not/AZone', now: WINTER }), ProtocolError);
});

t.test('v2 handshake reply: order, poll delay, legacy stamps (PUSH-v2 §4.4)', async (t) => {
  const body = v2.replies.handshake({ sn: 'ABC', timeZone: 'UTC', now: WINTER, pollSeconds: 20, legacyStamps: true }).body;
  t.equal(
    body,
    [
      'GET OPTION FROM: ABC',
      'ATTLOGStamp=None',
      'OPERLOGStamp=9999',
      'ATTPHOTOStamp=None',
      'Stamp=9999',
      'OpStamp=9999',
      'PhotoStamp=9999',
      'ErrorDelay=30',
      'Delay=20',
      'TransTimes=00:00;14:05',
      'TransInterval=1',
      'TransFlag=TransData AttLog\tOpLog\tAttPhoto\tEnrollUser\tChgUser\tEnrollFP\tChgFP\tFACE\tUserPic',
      'TimeZone=0',
      'Realtime=1',
      'Encrypt=None',
      'ServerVer=2.4.1',
      'PushProtVer=2.4.1',
      'PushOptionsFlag=1',
      'MultiBioDataSupport=0:1:1:0:0:0:0:0:0:1',
    ].join('\n'),
  );
  t.equal(
    'TransData AttLog\tOpLog\tAttPhoto\tEnrollUser\tChgUser\tEnrollFP\tChgFP\tFACE\tUserPic'.length,
    78,
    'under the vendor limit of 90',
  );
  t.notOk(body.endsWith('\n'), 'no trailing LF');
});

t.test('v3 handshake, configuration, registry (PUSH-v3 §3–§4)', async (t) => {
  for (const codec of [v2, v3]) {
    t.equal(codec.replies.registry('A1b2C3d4E5').body, 'RegistryCode=A1b2C3d4E5');
    t.throws(() => codec.replies.registry('bad code'), { code: 'INVALID_ARGUMENT' });
    t.equal(codec.replies.registryRefused().status, 406);
    t.match(codec.replies.config({ sessionId: 'ABC', pushProtVer: '3.1.2' }).body, /^PushProtVer=3\.1\.2\nPushVersion=3\.1\.2$/m);
  }
  t.equal(v3.replies.handshake({ sn: 'S', timeZone: 'UTC', now: WINTER }).body, 'OK');
  const reg = v3.replies.handshake({
    sn: 'S',
    timeZone: 'UTC',
    now: WINTER,
    pollSeconds: 9,
    pushProtVer: '3.1.1',
    registration: { registryCode: 'CODE123456', sessionId: 'FEED' },
  }).body;
  t.match(reg, /^registry=ok\nRegistryCode=CODE123456\nServerVersion=3\.0\.1\n/);
  t.match(reg, /^RequestDelay=9$/m);
  t.match(reg, /^PushProtVer=3\.1\.1$/m);
  t.match(reg, /^SessionID=FEED$/m);
  t.throws(() => v3.replies.handshake({ sn: 'S', timeZone: 'UTC', now: WINTER, registration: { registryCode: '', sessionId: 'FEED' } }), {
    code: 'INVALID_ARGUMENT',
  });
  t.throws(() => v3.replies.config({ sessionId: 'a b' }), { code: 'INVALID_ARGUMENT' });
  const code = registryCodeFrom(new Uint8Array([0xde, 0xad, 0xbe, 0xef, 0x01]));
  t.equal(code, 'DEADBEEF01');
  t.equal(sessionIdFrom(new Uint8Array(16).fill(0xab)), 'AB'.repeat(16));
  t.equal(sessionIdFrom(new Uint8Array([1])), `01${'0'.repeat(30)}`);
  t.equal(assumedToken('CODE', 'SN', 'SESSION'), '639b1773bfd81760cc27731a6eb3bccd');
});

t.test('upload replies (PUSH-v2 §6.1, PUSH-v3 §7.1, §10.2)', async (t) => {
  t.equal(v2.replies.upload({ kind: 'ok' }, 3).body, 'OK');
  t.equal(v2.replies.upload({ kind: 'okCount' }, 3).body, 'OK: 3');
  t.equal(v3.replies.upload({ kind: 'tableCount', table: 'templatev10' }, 2).body, 'templatev10=2');
  t.equal(v3.replies.upload({ kind: 'tableEcho', table: 'options', count: 1 }, 0).body, 'options=1');
  t.throws(() => v3.replies.upload({ kind: 'okCount' }, -1), { code: 'INVALID_ARGUMENT' });
  t.throws(() => v3.replies.upload({ kind: 'okCount' }, 1.5), { code: 'INVALID_ARGUMENT' });
  t.throws(() => v3.replies.upload({ kind: 'tableCount', table: 'user\nOK' }, 1), { code: 'INVALID_ARGUMENT' });
  for (const kind of ['handshake', 'registry', 'config', 'commands', 'remoteUser', 'file'] as const) {
    t.throws(() => v2.replies.upload({ kind }, 0), { code: 'INVALID_ARGUMENT' }, kind);
  }
  t.throws(() => v2.replies.upload({ kind: 'time', flavor: 'iso' }, 0), { code: 'INVALID_ARGUMENT' });
});

t.test('getrequest replies (PUSH-v2 §7.2, PUSH-v3 §8.2)', async (t) => {
  t.equal(v2.replies.commands([]).body, 'OK');
  t.equal(
    v2.replies.commands([
      { id: 1, wire: 'INFO' },
      { id: 2, wire: 'DATA UPDATE USERINFO PIN=1\tName=A' },
      { id: 3, wire: 'REBOOT' },
    ]).body,
    'C:1:INFO\nC:2:DATA UPDATE USERINFO PIN=1\tName=A\nC:3:REBOOT',
  );
  t.equal(
    v3.replies.commands([{ id: 223, wire: 'CONTROL DEVICE 03000000', priority: 5 }], { cmdFormat: 1, sn: 'SN1' }).body,
    'DataType=1,SN=SN1,Priority=5,CmdID=223,CmdDesc=C:223:CONTROL DEVICE 03000000',
  );
  t.equal(v3.replies.commands([{ id: 1, wire: 'X' }], { cmdFormat: 1 }).body, 'DataType=1,SN=,Priority=0,CmdID=1,CmdDesc=C:1:X');
  t.throws(() => v2.replies.commands([{ id: 1, wire: 'A\nC:2:REBOOT' }]), { code: 'INVALID_ARGUMENT' });
  t.throws(() => v2.replies.commands([{ id: 1, wire: '' }]), { code: 'INVALID_ARGUMENT' });
  t.throws(() => v2.replies.commands([{ id: 'a:b', wire: 'INFO' }]), { code: 'INVALID_ARGUMENT' });
});

t.test('time replies (PUSH-v2 §4.8, PUSH-v3 §13.2) and httpDate (PUSH-v2 §2.7)', async (t) => {
  const now = new Date(Date.UTC(2011, 4, 5, 22, 40, 20));
  t.equal(v2.replies.time(now, 'America/Chicago', 'iso').body, 'Time=2011-05-05T17:40:20-05:00');
  t.equal(v3.replies.time(new Date(Date.UTC(2018, 1, 22, 6, 36, 30)), 'Asia/Shanghai', 'rtdata').body, 'DateTime=583050990,ServerTZ=+0800');
  t.equal(
    v3.replies.time(new Date(Date.UTC(2018, 1, 22, 6, 36, 30)), 'America/St_Johns', 'rtdata').body,
    'DateTime=583050990,ServerTZ=-0330',
  );
  t.throws(() => v3.replies.time(new Date(0), 'UTC', 'rtdata'), { code: 'INVALID_ARGUMENT' });
  t.equal(httpDate(new Date(Date.UTC(2026, 1, 3, 8, 15, 0))), 'Tue, 03 Feb 2026 08:15:00 GMT');
  t.equal(httpDate(new Date(Date.UTC(2017, 0, 9, 2, 20, 19))), 'Mon, 09 Jan 2017 02:20:19 GMT');
});

t.test('RemoteAtt reply and OK (PUSH-v2 §6.10)', async (t) => {
  t.equal(v2.replies.remoteUser([]).body, '');
  t.equal(
    v2.replies.remoteUser(['DATA UPDATE USERINFO PIN=1\tName=A', 'DATA UPDATE FINGERTMP PIN=1\tFID=0']).body,
    'DATA UPDATE USERINFO PIN=1\tName=A\nDATA UPDATE FINGERTMP PIN=1\tFID=0',
  );
  t.throws(() => v2.replies.remoteUser(['a\rb']), { code: 'INVALID_ARGUMENT' });
  t.same(v3.replies.ok(), { status: 200, contentType: 'text/plain', body: 'OK' });
});
