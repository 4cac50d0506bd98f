// Golden tests over the Security PUSH fixtures (protocols/fixtures/v3).
import t from 'tap';
import type { DeviceEvent } from '../../protocols/codec.js';
import { codecFor, zkDecode } from '../../protocols/index.js';
import { fixtureFiles, readFixture, responseBody } from './fixture-reader.js';
import { decodeExchange, failedAssertions, NOW, ZONE } from './golden-helpers.js';

const v3 = codecFor('3.0.0');
const fx = (name: string) => readFixture('v3', name);
const decode = (name: string, n: number) => decodeExchange(fx(name), n, v3);
const only = <T extends DeviceEvent['type']>(events: readonly DeviceEvent[], type: T): Extract<DeviceEvent, { type: T }> => {
  const found = events.filter((e): e is Extract<DeviceEvent, { type: T }> => e.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type} event, got ${events.map((e) => e.type).join(',')}`);
  return found[0] as Extract<DeviceEvent, { type: T }>;
};
const profile = { version: '3.0.0' as const, options: { LockCount: '1' } };
const ctx = { timeZone: ZONE };
const framed = (id: number, result: ReturnType<typeof v3.encodePreset>): string =>
  result.ok ? v3.replies.commands(result.lines.map((wire, i) => ({ id: id + i, wire }))).body : `FAILED ${result.reason}`;

t.test('every fixture assertion holds for the pure replies', async (t) => {
  for (const file of fixtureFiles('v3')) t.same(failedAssertions('v3', file), [], file);
});

t.test('B1, B2 first contact: unregistered OK, registered registry=ok + configuration', async (t) => {
  const b1 = decode('b01-first-contact-unregistered-vendor.http', 1);
  t.equal(b1.sn, '3383154200002');
  t.match(only(b1.events, 'handshake'), { pushVersion: '3.0.1', deviceType: null });
  t.equal(v3.replies.handshake({ sn: b1.sn, timeZone: ZONE, now: NOW }).body, 'OK');
  const registered = v3.replies.handshake({
    sn: b1.sn,
    timeZone: ZONE,
    now: NOW,
    registration: { registryCode: 'ABC123XYZ0', sessionId: '30BFB04B2C8AECC72C01C03BFD549D15' },
  });
  t.equal(
    registered.body,
    [
      'registry=ok',
      'RegistryCode=ABC123XYZ0',
      'ServerVersion=3.0.1',
      'ServerName=BioGate',
      'PushProtVer=3.0.1',
      'PushVersion=3.0.1',
      'ErrorDelay=30',
      'RequestDelay=5',
      'TransTimes=00:00;14:00',
      'TransInterval=1',
      'TransTables=User Transaction',
      'Realtime=1',
      'SessionID=30BFB04B2C8AECC72C01C03BFD549D15',
      'TimeoutSec=10',
      'MultiBioDataSupport=0:1:1:0:0:0:0:0:0:1',
    ].join('\n'),
  );
  const b2 = only(decode('b02-first-contact-senseface3a-field.http', 1).events, 'handshake');
  t.match(b2, { pushVersion: '3.1.2', deviceType: 'acc', language: '83', pushOptionsFlag: true });
  t.equal(b2.params.pushflag, '…', 'unknown parameters kept, not rejected');
});

t.test('B4 registration body and reply', async (t) => {
  const r = decode('b04-registry-speedface-field.http', 1);
  t.equal(r.endpoint, 'registry');
  t.same(r.reply, { kind: 'registry' });
  const reg = only(r.events, 'registration');
  t.same(
    { ...reg.options.values },
    { DeviceType: 'acc', DeviceName: 'SpeedFace-V5L-RFID[TI]', FirmVer: 'ZAM180...', IPAddress: '192.168.1.201' },
  );
  t.equal(reg.options.keys.DeviceName, '~DeviceName');
  t.equal(v3.replies.registry('BG7F3A9C21D0').body, 'RegistryCode=BG7F3A9C21D0');
  t.equal(v3.replies.registryRefused().status, 406);
});

t.test('B5 /iclock/push: configuration with the vendor key set', async (t) => {
  const r = decode('b05-push-config-vendor.http', 1);
  t.same(r.events, [{ type: 'configRequest' }]);
  t.equal(r.token, '9d41643bfba01fe8b49143c21defc20a');
  const body = v3.replies.config({ sessionId: '30BFB04B2C8AECC72C01C03BFD549D15', pollSeconds: 2 }).body;
  const vendorKeys = responseBody(fx('b05-push-config-vendor.http').exchanges[0]!.response)
    .split('\n')
    .map((l) => l.slice(0, l.indexOf('=')));
  const ours = body.split('\n').map((l) => l.slice(0, l.indexOf('=')));
  for (const key of vendorKeys) t.ok(ours.includes(key), `key ${key}`);
  t.match(body, /^RequestDelay=2$/m);
});

t.test('B7 options with MultiBio keys', async (t) => {
  const o = only(decode('b07-options-upload-senseface2a-fixture.http', 1).events, 'options').options.values;
  t.equal(o.MultiBioDataSupport, '0:1:0:0:0:0:0:0:0:1');
  t.equal(o.MultiBioVersion, '0:13.0:0:0:0:0:0:0:0:40.1');
  t.equal(o.MaxMultiBioDataCount, '0:3000:0:0:0:0:0:0:0:1500');
  t.equal(o.MultiBioDataCount, '0:18:0:0:0:0:0:0:0:0');
  t.equal(o.OEMVendor, 'ZKTECO CO.');
});

t.test('B8 rtlog, B10 rtstate', async (t) => {
  const ev = only(decode('b08-rtlog-vendor.http', 1).events, 'doorEvents');
  t.same(ev.records, [
    { time: '2017-01-10 11:49:32', pin: '0', cardNo: '0', door: 1, event: 27, inOutStatus: 1, verifyType: '0', index: 21, extra: {} },
  ]);
  const s1 = only(decode('b10-rtstate-vendor-field.http', 1).events, 'doorStates');
  t.same(s1.records, [{ time: '2017-01-10 15:42:40', sensor: '00', relay: '00', alarm: '0200000000000000', door: '', extra: {} }]);
  const s2 = only(decode('b10-rtstate-vendor-field.http', 2).events, 'doorStates');
  t.match(s2.records, [{ sensor: '01', relay: '00', alarm: '0000000000000000', door: '01' }]);
});

t.test('B11 tabledata user: reply user=1', async (t) => {
  const r = decode('b11-tabledata-user-vendor.http', 1);
  t.same(r.reply, { kind: 'tableCount', table: 'user' });
  const u = only(r.events, 'users');
  t.same(u.source, { kind: 'upload', table: 'user', declaredCount: 1 });
  t.same(u.records, [
    {
      pin: '4',
      name: '',
      privilege: 0,
      password: '',
      cardNo: '',
      group: 1,
      timeZones: '',
      verify: 0,
      viceCard: '',
      uid: 5,
      startTime: '0',
      endTime: '0',
      disabled: false,
    },
  ]);
  t.equal(v3.replies.upload(r.reply, 1).body, 'user=1');
});

t.test('B13 tabledata biophoto, biodata, userpic, ATTPHOTO, errorlog', async (t) => {
  const f = 'b13-tabledata-photos-biodata-errorlog-vendor.http';
  t.match(only(decode(f, 1).events, 'bioPhotos').records, [{ pin: '123', fileName: '123.jpg', type: 9, size: 95040 }]);
  t.match(only(decode(f, 2).events, 'bioTemplates').records, [
    { pin: '1', no: 0, index: 0, valid: 1, duress: false, type: 8, majorVer: '5', minorVer: '0', format: 0 },
  ]);
  t.match(only(decode(f, 3).events, 'userPhotos').records, [{ pin: '1', fileName: '1.jpg', size: 22320 }]);
  const photo = decode(f, 4);
  t.same(photo.reply, { kind: 'tableCount', table: 'ATTPHOTO' }, 'table name case kept');
  t.match(only(photo.events, 'attendancePhotos').records, [
    { fileName: '20181003143617-22.jpg', pin: '22', time: '2018-10-03 14:36:17', size: 22701, content: { encoding: 'base64' } },
  ]);
  t.same(only(decode(f, 5).events, 'errorLogs').records, [
    { errCode: 'D01E0001', errMsg: '', dataOrigin: 'cmd', cmdId: '123', additional: '' },
  ]);
});

t.test('B14 command framing of SET OPTIONS', async (t) => {
  const body = responseBody(fx('b14-getrequest-set-options-vendor.http').exchanges[0]!.response);
  const wire = 'SET OPTIONS IPAddress=192.168.213.222,GATEIPAddress=192.168.213.1,NetMask=255.255.255.0';
  t.equal(v3.replies.commands([{ id: 223, wire }]).body, body);
});

t.test('B16 user upsert is user + userauthorize (no DevID); delete sequence; batched results', async (t) => {
  const f = fx('b16-user-authorize-delete-sequence-vendor.http');
  const upsert = v3.encodeSync({ op: 'user.upsert', user: { pin: 1, password: 234 } }, profile, ctx);
  t.same(upsert, {
    ok: true,
    lines: [
      'DATA UPDATE user CardNo=\tPin=1\tPassword=234\tGroup=0\tStartTime=0\tEndTime=0\tName=\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=1\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1',
    ],
  });
  t.equal(v3.replies.commands([{ id: 295, wire: upsert.ok ? upsert.lines[0]! : '' }]).body, responseBody(f.exchanges[0]!.response));
  t.equal(`${responseBody(f.exchanges[2]!.response).replace('\tDevID=1', '')}`, `C:296:${upsert.ok ? upsert.lines[1]! : ''}`);
  const del = v3.encodeSync({ op: 'user.delete', pin: 1 }, profile, ctx);
  t.equal(framed(335, del), responseBody(f.exchanges[4]!.response));
  t.same(
    only(decodeExchange(f, 2, v3).events, 'commandResults').results.map((r) => r.cmd),
    ['DATA UPDATE'],
  );
  t.same(
    only(decodeExchange(f, 6, v3).events, 'commandResults').results.map((r) => [r.id, r.returnCode]),
    [
      ['335', 0],
      ['336', 0],
      ['337', 0],
    ],
  );
});

t.test('B17 DATA COUNT and DATA QUERY through querydata', async (t) => {
  const f = 'b17-querydata-count-query-vendor.http';
  const count = decode(f, 2);
  t.same(count.events, [{ type: 'queryCount', cmdId: '288', table: 'user', count: 5 }]);
  // [PUSH-v3 §10.2] corrected: vendor V4.8 §12.1.3 answers a DATA COUNT packet `OK`
  t.same(count.reply, { kind: 'ok' });
  t.equal(v3.replies.upload(count.reply, 0).body, 'OK');
  const rows = decode(f, 5);
  const users = only(rows.events, 'users');
  t.same(users.source, { kind: 'query', cmdId: '415', table: 'user', declaredCount: 3, packCount: 1, packIndex: 1 });
  t.same(
    users.records.map((u) => [u.uid, u.pin, u.password, u.group]),
    [
      [1, '1', '', 1],
      [2, '2', '1', 1],
      [3, '3', '', 1],
    ],
  );
  t.equal(v3.replies.upload(rows.reply, 3).body, 'user=3');
  t.match(only(decode(f, 6).events, 'commandResults').results, [{ id: '415', returnCode: 3, cmd: 'DATA QUERY' }]);
  const tx = only(decode(f, 7).events, 'accessRecords');
  t.equal(tx.source.kind === 'query' ? tx.source.cmdId : '', '415', 'a second table under the same cmdid');
  t.match(tx.records, [
    {
      timeSecond: 548003688,
      time: '2017-01-19 15:14:48',
      pin: '0',
      cardNo: '0',
      verified: 200,
      doorId: 1,
      eventType: 100,
      inOutState: 2,
      index: 92,
    },
  ]);
  t.same(tx.records[0]?.extra, { sitecode: '0', devid: '1', sn: '3383154200002' });
  const load = v3.encodePreset({ preset: 'load-users' }, profile, ctx);
  t.equal(framed(415, load), responseBody(readFixture('v3', f).exchanges[3]!.response));
});

t.test('B19 CONTROL DEVICE operands', async (t) => {
  const f = fx('b19-control-device-vendor.http');
  t.equal(
    framed(221, v3.encodePreset({ preset: 'door-open', params: { door_id: 1, duration: 5 } }, profile, ctx)),
    responseBody(f.exchanges[0]!.response),
  );
  t.equal(framed(223, v3.encodePreset({ preset: 'reboot' }, profile, ctx)), responseBody(f.exchanges[2]!.response));
  t.equal(
    responseBody(f.exchanges[1]!.response),
    'C:222:CONTROL DEVICE 02010000',
    'per-door cancel-alarm form (BioGate sends all doors, 02000000)',
  );
  t.match(only(decodeExchange(f, 7, v3).events, 'commandResults').results, [{ id: '224', returnCode: 0, cmd: 'CONTROL DEVICE' }]);
});

t.test('B20 time: SET OPTIONS DateTime and the rtdata reply', async (t) => {
  const f = fx('b20-time-sync-vendor.http');
  // 2018-02-22 14:54:54 at UTC+8 is 06:54:54 UTC
  const sync = v3.encodeTimeSync(new Date(Date.UTC(2018, 1, 22, 6, 54, 54)), 'Asia/Shanghai');
  t.equal(framed(401, sync), responseBody(f.exchanges[0]!.response));
  const r = decodeExchange(f, 2, v3);
  t.same(r.reply, { kind: 'time', flavor: 'rtdata' });
  // the vendor example: DateTime=583050990 (UTC 06:36:30) with ServerTZ=+0800
  t.equal(
    v3.replies.time(new Date(Date.UTC(2018, 1, 22, 6, 36, 30)), 'Asia/Shanghai', 'rtdata').body,
    responseBody(f.exchanges[1]!.response),
  );
  t.same(zkDecode(583050990), { year: 2018, month: 2, day: 22, hour: 6, minute: 36, second: 30 });
});

t.test('B22 ENROLL_BIO and a lower-case return', async (t) => {
  const f = fx('b22-enroll-bio-vendor.http');
  const enroll = v3.encodePreset(
    { preset: 'enroll-biometric', params: { pin: 1, user_id: 7, type: 'face' } },
    { version: '3.0.0', options: { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1' } },
    ctx,
  );
  t.equal(framed(395, enroll), responseBody(f.exchanges[0]!.response));
  const res = only(decodeExchange(f, 2, v3).events, 'commandResults').results[0]!;
  t.match(res, { id: '395', returnCode: 0, cmd: 'ENROLL_BIO' });
  t.same(v3.outcome(res.returnCode, 'enroll-biometric'), { status: 'success' });
});

t.test('B23 key exchange: OK, never started', async (t) => {
  const r = decode('b23-key-exchange-vendor.http', 1);
  t.same(r.events, [{ type: 'keyExchange', exchangeType: 'publickey' }]);
  t.equal(v3.replies.upload(r.reply, 0).body, 'OK');
});
