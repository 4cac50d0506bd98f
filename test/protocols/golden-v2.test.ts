// Golden tests over the Attendance PUSH fixtures (protocols/fixtures/v2): every exchange decodes to the
// expected events, every `# assert:` holds for the replies of the pure codec functions, and the command
// lines recorded in the fixtures are what the encoders produce.
import t from 'tap';
import type { DeviceEvent } from '../../protocols/codec.js';
import { codecFor } from '../../protocols/index.js';
import { fixtureFiles, readFixture, responseBody } from './fixture-reader.js';
import { decodeExchange, failedAssertions, NOW, ZONE } from './golden-helpers.js';

const v2 = codecFor('2.0.0');
const fx = (name: string) => readFixture('v2', name);
const only = <T extends DeviceEvent['type']>(events: readonly DeviceEvent[], type: T): Extract<DeviceEvent, { type: T }> => {
  const found = events.filter((e): e is Extract<DeviceEvent, { type: T }> => e.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type} event, got ${events.map((e) => e.type).join(',')}`);
  return found[0] as Extract<DeviceEvent, { type: T }>;
};
const profile = { version: '2.0.0' as const, options: {} };
const ctx = { timeZone: ZONE };

t.test('every fixture assertion holds for the pure replies', async (t) => {
  for (const file of fixtureFiles('v2')) {
    // A32c exchange 6 is the handshake after the -1002 fallback: ATTLOGStamp=0 pending
    const failures = failedAssertions('v2', file, (n) => (file.startsWith('a32c') && n === 6 ? { fullAttlogReupload: true } : {}));
    t.same(failures, [], file);
  }
});

t.test('A1/A2 handshake: parameters, and the canonical reply byte for byte', async (t) => {
  const r = decodeExchange(fx('a01-handshake-request-field.http'), 1);
  t.equal(r.endpoint, 'cdata');
  t.equal(r.sn, 'BOCK200961014');
  t.same(r.reply, { kind: 'handshake' });
  const h = only(r.events, 'handshake');
  t.equal(h.pushVersion, '2.4.0');
  t.equal(h.language, '69');
  t.equal(h.deviceType, 'middle east');
  t.equal(h.pushOptionsFlag, true);
  t.equal(h.commKey, null);
  t.equal(h.params.PushOptionsFlag, '1');
  const reply = v2.replies.handshake({ sn: r.sn, timeZone: ZONE, now: NOW });
  t.equal(reply.status, 200);
  t.equal(reply.contentType, 'text/plain');
  const expected = responseBody(fx('a01-handshake-request-field.http').exchanges[0]!.response).replace('<tz>', '330');
  t.equal(reply.body, expected, 'A1 expected response with TimeZone=330 (+05:30 in minutes)');

  const a2 = only(decodeExchange(fx('a02-handshake-request-vendor.http'), 1).events, 'handshake');
  t.equal(a2.pushVersion, '2.2.14');
  t.equal(a2.language, '83');
  t.equal(a2.commKey, '4a9594af164f2b9779b59e8554b5df26', 'pushcommkey accepted and surfaced for the log');
  const a4 = only(decodeExchange(fx('a04-handshake-reply-vendor-legacy.http'), 1).events, 'handshake');
  t.equal(a4.pushVersion, null, 'no pushver: 2.2.14 assumed');
});

t.test('A32c exchange 6: ATTLOGStamp=0 once after the -1002 fallback', async (t) => {
  const f = fx('a32c-capability-refusals-lx35-field.http');
  const r = decodeExchange(f, 6);
  const body = v2.replies.handshake({ sn: r.sn, timeZone: 'Asia/Shanghai', now: NOW, fullAttlogReupload: true }).body;
  t.equal(body, responseBody(f.exchanges[5]!.response).replace('<tz>', '8'));
});

t.test('A7 ATTLOG: 9 records, LF-terminated', async (t) => {
  const r = decodeExchange(fx('a07-attlog-upload-vendor.http'), 1);
  t.equal(r.rejected, 0);
  t.same(r.reply, { kind: 'okCount' });
  const a = only(r.events, 'attendance');
  t.same(a.source, { kind: 'upload', table: 'ATTLOG', stamp: '9999' });
  t.equal(a.records.length, 9);
  t.equal(a.records.filter((x) => x.pin === '1452').length, 7);
  t.equal(a.records.filter((x) => x.pin === '8965').length, 2);
  t.same(a.records[0], {
    pin: '1452',
    time: '2015-07-30 15:16:28',
    status: 0,
    verify: 1,
    workCode: '0',
    reserved1: '0',
    reserved2: '0',
    extra: [],
  });
  t.same(a.records[8], {
    pin: '8965',
    time: '2015-07-30 15:16:37',
    status: 0,
    verify: 1,
    workCode: '0',
    reserved1: '0',
    reserved2: '0',
    extra: [],
  });
  t.equal(v2.replies.upload(r.reply, 9).body, 'OK: 9');
});

t.test('A8 ATTLOG with job and tip codes: extra fields raw, ISO stamp kept', async (t) => {
  const r = decodeExchange(fx('a08-attlog-upload-jobcodes-vendor.http'), 1);
  const a = only(r.events, 'attendance');
  t.same(a.source, { kind: 'upload', table: 'ATTLOG', stamp: '2008-02-25T12:08:21' });
  t.equal(a.records.length, 2);
  t.same(a.records[1], {
    pin: '982',
    time: '2016-02-25 13:18:22',
    status: 1,
    verify: 0,
    workCode: '9001',
    reserved1: '0',
    reserved2: '0',
    extra: ['1', '2', '3', '4', '5', '6', '1.0', '2.0', '3.0'],
  });
});

t.test('A10 OPERLOG, CR LF: 7 OPLOG + 2 FP, size mismatch flagged not rejected', async (t) => {
  const r = decodeExchange(fx('a10-operlog-oplog-fp-field-crlf.http'), 1);
  t.equal(r.rejected, 0);
  const ops = only(r.events, 'operationLogs');
  t.same(
    ops.records.map((o) => o.opType),
    [13, 0, 4, 5, 30, 6, 6],
  );
  t.same(ops.records[3], { opType: 5, operator: '0', time: '2024-06-13 12:51:22', objects: ['26', '0', '0', '0'] });
  t.same(ops.records[5]?.objects, ['1', '0', '0', '906'], 'K40-class op 6: Obj4 is a length');
  const fp = only(r.events, 'fingerprintTemplates');
  t.equal(fp.records.length, 2);
  t.match(fp.records[0], { pin: '1', fingerIndex: 0, valid: 1, size: 440, duress: false, sizeMismatch: true, usable: false });
  t.match(fp.records[1], { pin: '1', fingerIndex: 1, valid: 1, size: 332 });
  t.ok(fp.records[0]?.template.startsWith('ocoYgZ6nVgELiKpaARWTJERBGG4rEAEIS64xwRA/vyTBCTm0TkELJ8ZS'));
  t.notOk(fp.records[0]?.template.includes('\r'), 'CR stripped');
  t.equal(v2.replies.upload(r.reply, 9).body, 'OK: 9');
});

t.test('A11, A13, A14: OPLOG, legacy USER without Pri, FP', async (t) => {
  const op = only(decodeExchange(fx('a11-operlog-oplog-vendor.http'), 1).events, 'operationLogs');
  t.same(op.records, [{ opType: 4, operator: '14', time: '2015-07-30 10:22:34', objects: ['0', '0', '0', '0'] }]);
  const users = only(decodeExchange(fx('a13-operlog-user-legacy-vendor.http'), 1).events, 'users');
  t.same(users.records, [
    {
      pin: '982',
      name: 'Richard',
      privilege: null,
      password: '9822',
      cardNo: '13375590',
      group: 1,
      timeZones: '',
      verify: null,
      viceCard: '',
      uid: null,
      startTime: '',
      endTime: '',
      disabled: null,
    },
  ]);
  const fp = only(decodeExchange(fx('a14-operlog-fp-vendor.http'), 1).events, 'fingerprintTemplates');
  t.match(fp.records[0], { pin: '2', fingerIndex: 0, size: 1124, valid: 1, sizeMismatch: true });
});

t.test('A16 BIODATA palm template keeps the algorithm version', async (t) => {
  const r = decodeExchange(fx('a16-biodata-upload-vendor.http'), 1);
  t.same(r.reply, { kind: 'okCount' });
  const b = only(r.events, 'bioTemplates');
  t.match(b.records[0], { pin: '306', no: 0, index: 2, valid: 1, duress: false, type: 8, majorVer: '1', minorVer: '0', format: 0 });
});

t.test('A17 USERPIC and BIOPHOTO lines in OPERLOG', async (t) => {
  const f = fx('a17-operlog-userpic-biophoto-vendor.http');
  const pic = only(decodeExchange(f, 1).events, 'userPhotos');
  t.same(pic.records, [{ pin: '123', fileName: '123.jpg', size: 10, content: 'AAAAAAAAA......', usable: false }]);
  const photo = only(decodeExchange(f, 2).events, 'bioPhotos');
  t.match(photo.records[0], { pin: '123', fileName: '123.jpg', type: 2, size: 95040 });
});

t.test('A19 ERRORLOG', async (t) => {
  const r = decodeExchange(fx('a19-errorlog-upload-vendor.http'), 1);
  t.same(r.reply, { kind: 'ok' });
  t.same(only(r.events, 'errorLogs').records, [{ errCode: 'D01E0001', errMsg: '', dataOrigin: 'cmd', cmdId: '123', additional: '' }]);
});

t.test('A20, A22, A23 options: comma inside ~OEMVendor, empty values kept', async (t) => {
  const a20 = only(decodeExchange(fx('a20-options-upload-vendor.http'), 1).events, 'options');
  t.same({ ...a20.options.values }, { FingerFunOn: '1', FaceFunOn: '1', UserPicURLFunOn: '1' });
  const a22 = only(decodeExchange(fx('a22-options-upload-k40pro-field.http'), 1).events, 'options').options;
  t.equal(a22.values.OEMVendor, 'ZKTECO CO., LTD.');
  t.equal(a22.keys.OEMVendor, '~OEMVendor');
  t.equal(a22.values.UserCount, '2');
  t.equal(a22.values.FPCount, '2');
  t.equal(a22.values.TransactionCount, '164');
  t.equal(a22.values.PvFunOn, '');
  t.equal(a22.values.MultiBioDataSupport, '');
  t.equal(a22.values.PushVersion, 'Ver 2.0.33S-20220613');
  t.equal(a22.values.SubcontractingUpgradeFunOn, '1');
  const a23 = only(decodeExchange(fx('a23-options-upload-uface800-field.http'), 1).events, 'options').options;
  t.equal(a23.values.OEMVendor, 'ZKTECO CO., LTD.');
  t.equal(a23.values.UserCount, '264');
  t.equal(a23.values.FPCount, '285');
  t.equal(a23.values.FaceCount, '227');
  t.equal(a23.values.FaceVersion, '7');
});

t.test('A25, A26 heartbeat INFO: 10-field and older 9-field forms', async (t) => {
  const a25 = only(decodeExchange(fx('a25-heartbeat-info-field.http'), 1).events, 'heartbeat');
  t.same(a25.info, {
    raw: 'Ver 8.0.4.2-5856-01,1,0,11,172.16.12.191,10,7,12,0,111',
    firmware: 'Ver 8.0.4.2-5856-01',
    users: 1,
    fingerprints: 0,
    attendanceRecords: 11,
    ip: '172.16.12.191',
    fpAlgorithm: '10',
    faceAlgorithm: '7',
    facesToEnroll: 12,
    faces: 0,
    flags: '111',
  });
  const f = fx('a26-heartbeat-info-vendor.http');
  const old = only(decodeExchange(f, 1).events, 'heartbeat');
  t.same(old.info, {
    raw: 'Ver 6.8.0(build640),2,0,0,192.168.1.201,10,-1,-12,101',
    firmware: 'Ver 6.8.0(build640)',
    users: 2,
    fingerprints: 0,
    attendanceRecords: 0,
    ip: '192.168.1.201',
    fpAlgorithm: null,
    faceAlgorithm: null,
    facesToEnroll: null,
    faces: null,
    flags: null,
  });
  const r2 = decodeExchange(f, 2);
  t.match(only(r2.events, 'heartbeat').info, { firmware: 'Ver 2.0.12-20150625', ip: '192.168.16.27', facesToEnroll: 15, flags: '111' });
  t.same(r2.reply, { kind: 'commands' });
  t.equal(v2.replies.commands([]).body, 'OK');
});

t.test('A28 results, single and batched; correlation data by ID', async (t) => {
  const f = fx('a28-command-results-field.http');
  const one = only(decodeExchange(f, 1).events, 'commandResults');
  t.match(one.results, [{ id: '1', returnCode: 0, cmd: 'INFO', sn: '', content: null, options: null }]);
  const batch = only(decodeExchange(f, 2).events, 'commandResults');
  t.same(
    batch.results.map((r) => [r.id, r.returnCode, r.cmd]),
    [
      ['1', 0, 'DATA'],
      ['2', 0, 'DATA'],
      ['3', 0, 'CHECK'],
    ],
  );
});

t.test('A29 Shell: the delivered command and its one-key-per-line result', async (t) => {
  const f = fx('a29-shell-result-field.http');
  const res = only(decodeExchange(f, 2).events, 'commandResults').results[0];
  t.match(res, { id: '32', returnCode: 0, cmd: 'Shell', content: 'Tue Mar 24 16:12:26 GMT 2026', options: null });
  // BioGate emits SHELL (COMMANDS §4.23); the device in the fixture accepted the mixed-case word
  const encoded = v2.encodePreset({ preset: 'shell-command', params: { command: 'date' } }, profile, ctx);
  t.same(encoded, { ok: true, lines: ['SHELL date'] });
  t.equal(responseBody(f.exchanges[0]!.response), 'C:32:Shell date');
});

t.test('A31, A32 INFO result blocks: parameters become options', async (t) => {
  const a31f = fx('a31-info-result-lx35-field.http');
  const a31 = only(decodeExchange(a31f, 2).events, 'commandResults').results[0];
  t.equal(a31?.id, '1');
  t.equal(a31?.options?.values.DeviceName, 'LX35');
  t.equal(a31?.options?.values.OEMVendor, 'ZKTECO CO., LTD.');
  t.equal(a31?.options?.values.MainTime, '2026-10-02 23:51:20');
  t.equal(a31?.options?.values.FPVersion, '13');
  t.equal(a31?.options?.values.PushVersion, 'Ver 3.0.1-20230519');
  t.equal(Object.keys(a31?.options?.values ?? {}).length, 16);
  const info = v2.encodePreset({ preset: 'info' }, profile, ctx);
  t.same(info, { ok: true, lines: ['INFO'] });
  t.equal(v2.replies.commands([{ id: 1, wire: 'INFO' }]).body, responseBody(a31f.exchanges[0]!.response));
  const a32f = fx('a32-info-result-speedface-fixture.http');
  const a32 = only(decodeExchange(a32f, 2).events, 'commandResults').results[0];
  t.same(
    { ...a32?.options?.values },
    { DeviceName: 'SpeedFace-V5L', MAC: '00:17:61:11:cf:40', FWVersion: 'ZAM230-NF50VA-Ver1.1.9', Platform: 'ZAM230_TFT' },
  );
  t.equal(v2.replies.commands([{ id: 10, wire: 'INFO' }]).body, responseBody(a32f.exchanges[0]!.response));
});

t.test('A32b alphanumeric command id', async (t) => {
  const f = fx('a32b-ac-unlock-string-id-field.http');
  t.match(only(decodeExchange(f, 2).events, 'commandResults').results, [{ id: 'OPENDOOR0', returnCode: 0, cmd: 'AC_UNLOCK' }]);
  const unlock = v2.encodePreset({ preset: 'door-unlock' }, profile, ctx);
  t.same(unlock, { ok: true, lines: ['AC_UNLOCK'] });
  t.equal(v2.replies.commands([{ id: 'OPENDOOR0', wire: 'AC_UNLOCK' }]).body, responseBody(f.exchanges[0]!.response));
});

t.test('A32c -1002 refusals: encoders, classification and the CHECK fallback', async (t) => {
  const f = fx('a32c-capability-refusals-lx35-field.http');
  const load = v2.encodePreset({ preset: 'load-users' }, profile, ctx);
  t.same(load, { ok: true, lines: ['DATA QUERY USERINFO'] });
  t.equal(v2.replies.commands([{ id: 1, wire: 'DATA QUERY USERINFO' }]).body, responseBody(f.exchanges[0]!.response));
  const query = { preset: 'check-attendance' as const, params: { startDate: '2026-02-01', endDate: '2026-02-10' } };
  const check = v2.encodePreset(query, profile, ctx);
  t.ok(check.ok);
  if (check.ok) t.equal(v2.replies.commands([{ id: 2, wire: check.lines[0]! }]).body, responseBody(f.exchanges[2]!.response));
  const refused = only(decodeExchange(f, 4).events, 'commandResults').results[0]!;
  t.equal(refused.returnCode, -1002);
  t.equal(v2.classifyReturn(refused.returnCode), 'unsupported');
  t.equal(v2.capabilityKey('DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00\tEndTime=2026-02-10 23:59:59'), 'DATA QUERY ATTLOG');
  t.same(v2.outcome(refused.returnCode), { status: 'failed', message: 'device returned -1002: command not supported by the device' });
  const fallback = v2.presetFallback(query, -1002);
  t.same(fallback, {
    ok: true,
    lines: ['CHECK'],
    note: 'range query unsupported; full re-upload requested',
    requestFullAttlogUpload: true,
  });
  t.equal(v2.replies.commands([{ id: 3, wire: 'CHECK' }]).body, responseBody(f.exchanges[4]!.response));
  t.match(only(decodeExchange(f, 7).events, 'commandResults').results, [{ id: '3', returnCode: 0, cmd: 'CHECK' }]);
});

t.test('A34 older result form with SN; A35 ping', async (t) => {
  t.match(only(decodeExchange(fx('a34-result-with-sn-vendor.http'), 1).events, 'commandResults').results, [
    { id: '77', sn: '12345', returnCode: 0, cmd: 'CHECK' },
  ]);
  const ping = decodeExchange(fx('a35-ping-vendor.http'), 1);
  t.equal(ping.endpoint, 'ping');
  t.same(ping.events, [{ type: 'ping' }]);
  t.equal(ping.token, 'cb386eb5f8219329db63356fb262ddff', 'token cookie surfaced, not validated');
  t.equal(v2.replies.ok().body, 'OK');
});

t.test('A37 SyncData lines: upper-case SIZE/VALID read back; BioGate emits Size/Valid', async (t) => {
  const f = fx('a37-syncdata-command-lines-vendor.http');
  const lines = responseBody(f.exchanges[0]!.response).split('\n');
  t.equal(lines.length, 3);
  const user = v2.encodeSync({ op: 'user.upsert', user: { pin: 1, firstName: '1', password: 1, privilege: 0, group: 1 } }, profile, ctx);
  t.same(user, { ok: true, lines: ['DATA UPDATE USERINFO PIN=1\tName=1\tPri=0\tPasswd=1\tCard=\tGrp=1\tTZ=0000000100000000'] });
  const face = v2.encodeSync(
    { op: 'template.upsert', template: { pin: 1, type: 2, no: 0, data: 'c2FmZHNhd3Jyd3JIcmVyZXJIcnc=' } },
    { version: '2.0.0', options: { FaceFunOn: '1' } },
    ctx,
  );
  t.same(face, { ok: true, lines: ['DATA UPDATE FACE PIN=1\tFID=0\tValid=1\tSize=28\tTMP=c2FmZHNhd3Jyd3JIcmVyZXJIcnc='] });
});
