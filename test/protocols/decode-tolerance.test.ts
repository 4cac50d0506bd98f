// Tolerance of the decoder to real firmware variation, and its typed errors.
import t from 'tap';
import type { DecodeResult, DeviceEvent, WireRequest } from '../../protocols/codec.js';
import { ProtocolError } from '../../protocols/codec.js';
import { codecFor, countRecords } from '../../protocols/index.js';

const codec = codecFor('3.0.0');
const enc = new TextEncoder();
const req = (
  method: string,
  path: string,
  query: Record<string, string>,
  body: string | Uint8Array = '',
  headers: Record<string, string> = {},
): WireRequest => ({ method, path, query, headers, body: typeof body === 'string' ? enc.encode(body) : body });
const post = (query: Record<string, string>, body: string | Uint8Array, path = '/iclock/cdata') =>
  codec.decode(req('POST', path, { SN: 'S1', ...query }, body));
const kinds = (r: DecodeResult) => r.events.map((e) => e.type);
const only = <T extends DeviceEvent['type']>(r: DecodeResult, type: T): Extract<DeviceEvent, { type: T }> => {
  const e = r.events.find((x): x is Extract<DeviceEvent, { type: T }> => x.type === type);
  if (e === undefined) throw new Error(`no ${type} in ${kinds(r).join(',')}`);
  return e;
};

t.test('request-level errors are ProtocolErrors with codes', async (t) => {
  const code = (r: WireRequest) => {
    try {
      codec.decode(r);
      return 'none';
    } catch (e) {
      return e instanceof ProtocolError ? e.code : `other ${String(e)}`;
    }
  };
  t.equal(code(req('GET', '/iclock/getrequest', {})), 'MISSING_SN');
  t.equal(code(req('GET', '/iclock/getrequest', { SN: '' })), 'MISSING_SN');
  t.equal(code(req('GET', '/iclock/getrequest', { SN: 'A B' })), 'INVALID_SN');
  t.equal(code(req('GET', '/iclock/getrequest', { SN: 'x'.repeat(65) })), 'INVALID_SN');
  t.equal(code(req('GET', '/iclock/getrequest', { SN: 'A\r\nB' })), 'INVALID_SN');
  t.equal(code(req('GET', '/favicon.ico', { SN: 'A' })), 'UNKNOWN_ENDPOINT');
  t.equal(code(req('GET', '/iclock/nope', { SN: 'A' })), 'UNKNOWN_ENDPOINT');
  t.equal(code(req('POST', '/iclock/querydata', { SN: 'A', type: 'tabledata', tablename: 'user' })), 'MISSING_PARAMETER');
  t.equal(code(req('POST', '/iclock/querydata', { SN: 'A', type: 'tabledata', cmdid: '1' })), 'MISSING_PARAMETER');
  t.equal(code(req('POST', '/iclock/cdata', { SN: 'A', table: 'tabledata' })), 'MISSING_PARAMETER');
  t.equal(code(req('GET', '/iclock/cdata', { SN: 'A', table: 'RemoteAtt' })), 'MISSING_PARAMETER');
  t.equal(code(req('GET', '/iclock/file', { SN: 'A' })), 'MISSING_PARAMETER');
  t.equal(code(req('POST', '/iclock/cdata', { SN: 'A', table: 'tabledata', tablename: 'user\r\nOK' })), 'INVALID_PARAMETER');
  t.equal(code(req('POST', '/iclock/querydata', { SN: 'A', type: 'count', cmdid: '1', tablename: 'a=b' })), 'INVALID_PARAMETER');
  t.equal(
    code(req('POST', '/iclock/querydata', { SN: 'A', type: 'options', cmdid: '1', tablename: ' ' })),
    'none',
    'blank tablename on options: options',
  );
  const e = new ProtocolError('MISSING_SN', 'm', { cause: 1 });
  t.equal(e.name, 'ProtocolError');
  t.equal(e.cause, 1);
});

t.test('paths, parameter case, cookie token (PUSH-v2 §2.8, PUSH-v3 §3.7, §5)', async (t) => {
  t.equal(codec.decode(req('GET', '/iclock/iclock/getrequest', { sn: 'A' })).endpoint, 'getrequest');
  t.equal(codec.decode(req('GET', '/ICLOCK/Ping/', { SN: 'A' })).endpoint, 'ping');
  t.equal(codec.decode(req('GET', '/iclock/ping?SN=A', { SN: 'A' })).endpoint, 'ping');
  const withCookie = codec.decode(req('GET', '/iclock/ping', { SN: 'A' }, '', { cookie: 'timestamp=1; token=abc ; x=y' }));
  t.equal(withCookie.token, 'abc');
  t.equal(codec.decode(req('GET', '/iclock/ping', { SN: 'A' }, '', { cookie: 'timestamp=1' })).token, null);
  const sc = codec.decode(req('POST', '/iclock/service/control', { SN: 'A' }));
  t.same(sc.events, [{ type: 'serviceControl' }]);
  t.same(sc.reply, { kind: 'ok' });
});

t.test('cdata routing without a table', async (t) => {
  const time = codec.decode(req('GET', '/iclock/cdata', { SN: 'A', type: 'time' }));
  t.same(time.events, [{ type: 'timeRequest', flavor: 'iso' }]);
  t.same(time.reply, { kind: 'time', flavor: 'iso' });
  t.same(codec.decode(req('GET', '/iclock/cdata', { SN: 'A' })).reply, { kind: 'handshake' });
  const auth = post({ AuthType: 'device' }, 'time=2026-01-01 00:00:00\tpin=1');
  t.same(kinds(auth), ['unknownTable']);
  t.same(only(auth, 'unknownTable').source, { kind: 'upload', table: '' });
  const remote = codec.decode(req('GET', '/iclock/cdata', { SN: 'A', table: 'RemoteAtt', PIN: '1001' }));
  t.same(remote.events, [{ type: 'remoteUserLookup', pin: '1001' }]);
  t.same(remote.reply, { kind: 'remoteUser' });
});

t.test('ATTLOG tolerances (PUSH-v2 §6.2)', async (t) => {
  const r = post(
    { table: 'ATTLOG', Stamp: '1' },
    [
      '1001\t2026-02-03 08:00:00\t0\t1\t\t0\t0\t',
      '1002  2026-02-03 08:01:00  1  15',
      '1003\t2026-02-03T08:02:00',
      'PIN=1004\tDateTime=2026-02-03 08:03:00\tVerified=1\tStatus=0',
      'PIN=1005 DateTime=2026-02-03 08:04:00 Verify=4 Status=1 WorkCode=7',
      '1006\t2026-02-03 08:05:00\t\t',
      '1012  2026-02-03 08:09:00',
      '1007\tnot-a-time\t0\t1',
      '1008\t2026-02-03 08:06:00\tx\t1',
      '1009\t2026-02-03 08:06:00\t0\t1.5',
      'only-one-field',
      '\t2026-02-03 08:07:00\t0\t1',
      'PIN=1010\tStatus=0',
      'PIN=1011\tTime=2026-02-03 08:08:00\tStatus=q',
      '   ',
    ].join('\r\n'),
  );
  const a = only(r, 'attendance');
  t.same(
    a.records.map((x) => [x.pin, x.time, x.status, x.verify, x.workCode]),
    [
      ['1001', '2026-02-03 08:00:00', 0, 1, ''],
      ['1002', '2026-02-03 08:01:00', 1, 15, ''],
      ['1003', '2026-02-03 08:02:00', null, null, ''],
      ['1004', '2026-02-03 08:03:00', 0, 1, ''],
      ['1005', '2026-02-03 08:04:00', 1, 4, '7'],
      ['1006', '2026-02-03 08:05:00', null, null, ''],
      ['1012', '2026-02-03 08:09:00', null, null, ''],
    ],
  );
  t.equal(r.rejected, 7);
  t.equal(r.rejectedSamples.length, 5, 'samples are bounded');
  t.same(r.rejectedSamples[0], '1007\tnot-a-time\t0\t1');
  const empty = post({ table: 'ATTLOG' }, '');
  t.same(empty.events, []);
  t.equal(codec.replies.upload(empty.reply, countRecords(empty.events)).body, 'OK: 0');
});

t.test('OPERLOG and other tagged tables (PUSH-v2 §6.4, §6.10)', async (t) => {
  const r = post(
    { table: 'OPERLOG' },
    [
      'OPLOG 6 0 2024-06-13 12:55:41 1 0 0 906',
      'USER PIN=5 Name=Ann Lee Pri=14 Passwd= Card=[15CD5B07] Grp=2 TZ=0000000100000000 Verify=-1 ViceCard=9',
      'FACE PIN=5\tFID=0\tSIZE=4\tVALID=1\tTMP=AAAA',
      'FVEIN Pin=5\tFID=1\tIndex=0\tSize=4\tValid=1\tTmp=AAAA',
      'biodata pin=5\tno=0\tindex=0\tvalid=1\tduress=1\ttype=9\tmajorver=40\tminorver=1\tformat=0\ttmp=AAAA',
      'WORKCODE PIN=5\tCODE=1',
      'FP PIN=5\tFID=0\tSize=4\tValid=1',
      'FP PIN=5\tFID=x\tTMP=AAAA',
      'FACE PIN=5',
      'FVEIN PIN=5\tTmp=AAAA',
      'BIODATA Pin=5\tType=12\tTmp=AAAA',
      'USER Name=nobody',
      'USERPIC PIN=5',
      'ERRORLOG ErrMsg=x',
      'OPLOG x\t0\t2024-06-13 12:55:41',
      'garbage',
    ].join('\n'),
  );
  t.same(kinds(r), ['operationLogs', 'users', 'faceTemplates', 'fingerVeinTemplates', 'bioTemplates', 'unknownRecords']);
  t.same(only(r, 'operationLogs').records, [{ opType: 6, operator: '0', time: '2024-06-13 12:55:41', objects: ['1', '0', '0', '906'] }]);
  t.match(only(r, 'users').records, [
    { pin: '5', name: 'Ann Lee', privilege: 14, cardNo: '123456789', group: 2, timeZones: '0000000100000000', verify: -1, viceCard: '9' },
  ]);
  t.match(only(r, 'faceTemplates').records, [
    { pin: '5', faceIndex: 0, size: 4, valid: 1, template: 'AAAA', usable: true, sizeMismatch: false },
  ]);
  t.match(only(r, 'fingerVeinTemplates').records, [{ pin: '5', fingerIndex: 1, index: 0, size: 4, valid: 1, usable: true }]);
  // a future biometric type (12) is kept as an opaque template (issue #18)
  t.match(only(r, 'bioTemplates').records, [
    { pin: '5', type: 9, duress: true, majorVer: '40', minorVer: '1', usable: true },
    { pin: '5', type: 12, template: 'AAAA' },
  ]);
  t.same(only(r, 'unknownRecords').lines, ['WORKCODE PIN=5\tCODE=1']);
  t.equal(r.rejected, 9);
  t.equal(countRecords(r.events), 7);

  const info = post({ table: 'USERINFO' }, 'PIN=1\tName=A\tPrivilege=6\tCard=77\nUSER PIN=2\tName=B');
  t.same(
    only(info, 'users').records.map((u) => [u.pin, u.privilege, u.cardNo]),
    [
      ['1', 6, '77'],
      ['2', null, ''],
    ],
  );
  t.same(info.reply, { kind: 'okCount' });
  const tmp = post({ table: 'FINGERTMP' }, 'PIN=1\tFID=3\tSize=4\tValid=3\tTMP=AAAA');
  t.match(only(tmp, 'fingerprintTemplates').records, [{ fingerIndex: 3, valid: 3, duress: true }]);
  t.same(tmp.reply, { kind: 'ok' });
  const bad = post({ table: 'BIODATA' }, 'Pin=1\tNo=0\tTmp=AAAA');
  t.equal(bad.rejected, 1, 'BIODATA without a type');
  const card = post({ table: 'USERINFO' }, 'PIN=3\tCard=[zz]');
  t.equal(only(card, 'users').records[0]?.cardNo, '[zz]', 'unparseable card kept as received');
});

t.test('ATTPHOTO bytes, fdata alias, file names (PUSH-v2 §6.8)', async (t) => {
  const jpeg = new Uint8Array([0xff, 0xd8, 0x00, 0x0a, 0xff, 0xd9]);
  const head = enc.encode('PIN=20260203080000-1001.jpg\nSN=S1\nsize=6\nCMD=uploadphoto\0');
  const body = new Uint8Array([...head, ...jpeg]);
  const r = post({ table: 'ATTPHOTO' }, body);
  t.same(r.reply, { kind: 'ok' });
  const p = only(r, 'attendancePhotos').records[0]!;
  t.match(p, { fileName: '20260203080000-1001.jpg', pin: '1001', time: '2026-02-03 08:00:00', size: 6, cmd: 'uploadphoto' });
  t.same(p.content.encoding === 'binary' ? [...p.content.bytes] : [], [...jpeg], 'bytes after the first NUL, untouched (NUL inside kept)');
  const f = codec.decode(req('POST', '/iclock/fdata', { SN: 'S1' }, enc.encode('PIN=20260203080000.jpg\nCMD=realupload\0xyz')));
  t.match(only(f, 'attendancePhotos').records[0], {
    fileName: '20260203080000.jpg',
    pin: '',
    time: '2026-02-03 08:00:00',
    size: null,
    cmd: 'realupload',
  });
  t.match(only(f, 'attendancePhotos').source, { kind: 'upload', table: 'ATTPHOTO' });
  const id = post({ table: 'ATTPHOTO' }, enc.encode('PIN=20260203080000-0-77-440301.jpg\0x'));
  t.equal(only(id, 'attendancePhotos').records[0]?.pin, '77', 'ID-card file name form');
  const odd = post({ table: 'ATTPHOTO' }, enc.encode('PIN=photo.png\0x'));
  t.match(only(odd, 'attendancePhotos').records[0], { fileName: 'photo.png', pin: '', time: '' });
  t.same(kinds(post({ table: 'ATTPHOTO' }, 'no nul here')), ['unknownTable']);
  const noName = post({ table: 'ATTPHOTO' }, enc.encode('SN=S1\0x'));
  t.same(noName.events, []);
  t.equal(noName.rejected, 1);
});

t.test('raw tables: IDCARD counted per record, unknown tables OK, both kept per record (PUSH-v2 §6.1, §6.9; issue #18)', async (t) => {
  const id = post({ table: 'IDCARD' }, 'a\nb\r\n\n');
  t.same(kinds(id), ['rawRecords']);
  t.same(only(id, 'rawRecords').records, ['a', 'b']);
  t.same(id.reply, { kind: 'okCount' });
  t.equal(countRecords(id.events), 2);
  t.same(kinds(post({ table: 'IDCARD' }, enc.encode('a\0b'))), ['unknownTable'], 'a binary body is kept whole');
  const unknown = post({ table: 'SELFSERVICEDATA' }, 'x y z');
  t.same(kinds(unknown), ['rawRecords']);
  t.same(unknown.reply, { kind: 'ok' });
  t.equal(countRecords(post({ table: 'irstate' }, 'a\tb').events), 1);
  t.equal(countRecords(post({ table: 'irstate' }, '').events), 0);
});

t.test('options with rejected fragments; GB2312 names (PUSH-v2 §2.6, §5.2)', async (t) => {
  const r = post({ table: 'options' }, 'junk,A=1');
  t.equal(r.rejected, 1);
  const gbUser = new Uint8Array([...enc.encode('USER PIN=1\tName='), 0xd5, 0xc5, 0xce, 0xb0, 0xb1]);
  const decoded = codec.decode(req('POST', '/iclock/cdata', { SN: 'S1', table: 'OPERLOG' }, gbUser), { language: '83' });
  t.equal(only(decoded, 'users').records[0]?.name.startsWith('张伟'), true);
});

t.test('devicecmd parsing edge cases (PUSH-v2 §8.3, PUSH-v3 §9.1)', async (t) => {
  const r = post(
    {},
    [
      'Return=0',
      'ID=1&Return=0&CMD=ACCOUNT&transaction&StartTime=&EndTime=&RecordSum=5',
      'ID=2',
      'SN=S1',
      'Return=0',
      'CMD=Shell',
      'FILENAME=shellout.txt',
      'Content=line one',
      'line two',
      '',
      'ID=3&CMD=DATA',
      'ID=&Return=0',
      'id=4&return=-1004&cmd=DATA',
      'ID=5&Return=0&CMD=INFO',
      '~DeviceName=X',
      'Return=9',
      '',
      'UserCount=3',
      '',
    ].join('\r\n'),
    '/iclock/devicecmd',
  );
  const results = only(r, 'commandResults').results;
  t.same(
    results.map((x) => x.id),
    ['1', '2', '4', '5'],
  );
  t.same({ ...results[0]!.fields }, { transaction: '', StartTime: '', EndTime: '', RecordSum: '5' });
  t.match(results[1], { id: '2', sn: 'S1', cmd: 'Shell', content: 'line one\nline two', returnCode: 0 });
  t.same({ ...results[1]!.fields }, { FILENAME: 'shellout.txt' });
  t.equal(results[2]?.returnCode, -1004);
  t.same({ ...results[3]!.options!.values }, { DeviceName: 'X', UserCount: '3' });
  t.equal(results[3]?.returnCode, 0, 'first Return wins');
  t.equal(r.rejected, 3, 'line before any ID, result without Return, result without ID');
  const none = post({}, '', '/iclock/devicecmd');
  t.same(none.events, []);
  const inline = post({}, 'ID=9&Return=0&Content=x', '/iclock/devicecmd');
  t.equal(only(inline, 'commandResults').results[0]?.content, 'x');
});

t.test('Security PUSH tables: rtlog order, duress finger, bad rows (PUSH-v3 §7)', async (t) => {
  const rt = post(
    { table: 'rtlog' },
    [
      'time=2026-02-23 14:13:48\tpin=12\tcardno=0\teventaddr=1\tevent=3\tinoutstatus=0\tverifytype=15\tindex=7\tsitecode=0\tlinkid=0',
      'pin=1\tevent=0',
      'time=2026-02-23 14:13:49\tevent=x',
    ].join('\n'),
  );
  t.match(only(rt, 'doorEvents').records, [{ pin: '12', event: 3, verifyType: '15', index: 7, extra: { sitecode: '0', linkid: '0' } }]);
  t.equal(rt.rejected, 2);
  t.equal(post({ table: 'rtstate' }, 'sensor=00').rejected, 1);
  const spaced = post({ table: 'rtlog' }, 'time=2026-02-23 14:13:48 pin=1 event=200');
  t.match(only(spaced, 'doorEvents').records, [{ time: '2026-02-23 14:13:48', pin: '1', event: 200 }]);
  const tmpl = post(
    { table: 'tabledata', tablename: 'templatev10', count: 'x' },
    'templatev10 size=4\tuid=3\tpin=9\tfingerid=22\tvalid=1\ttemplate=AAAA\tresverd=\tendtag=',
  );
  t.match(only(tmpl, 'fingerprintTemplates').records, [{ pin: '9', fingerIndex: 6, duress: true, uid: 3, size: 4 }]);
  t.same(only(tmpl, 'fingerprintTemplates').source, { kind: 'upload', table: 'templatev10' }, 'unparseable count omitted');
  t.equal(post({ table: 'tabledata', tablename: 'transaction' }, 'transaction pin=1\ttime_second=-5').rejected, 1);
  t.equal(post({ table: 'tabledata', tablename: 'ATTPHOTO' }, 'pin=1.jpg\tsize=1').rejected, 1);
  const idc = post({ table: 'tabledata', tablename: 'identitycard', count: '1' }, 'identitycard pin=1\tSN_Num=2');
  t.same(kinds(idc), ['rawRecords']);
  t.same(idc.reply, { kind: 'tableCount', table: 'identitycard' });
  t.equal(codec.replies.upload(idc.reply, countRecords(idc.events)).body, 'identitycard=1');
  const auth = post({ type: 'registry', table: 'tabledata', tablename: 'DeviceAuthorize', count: '1' }, 'DeviceAuthorizeSN=X\tOnline=1');
  t.equal(codec.replies.upload(auth.reply, countRecords(auth.events)).body, 'DeviceAuthorize=1');
});

t.test('querydata variants (PUSH-v3 §10)', async (t) => {
  const q = (query: Record<string, string>, body: string | Uint8Array) => post(query, body, '/iclock/querydata');
  const opts = q({ type: 'options', cmdid: '7', count: '1' }, '~SerialNumber=ABC,FirmVer=Ver 1.0,LockCount=2');
  t.same(kinds(opts), ['queryOptions']);
  t.same({ ...only(opts, 'queryOptions').options.values }, { SerialNumber: 'ABC', FirmVer: 'Ver 1.0', LockCount: '2' });
  t.same(opts.reply, { kind: 'tableEcho', table: 'options', count: 1 });
  t.same(q({ type: 'options', cmdid: '7', tablename: 'options' }, 'junk').rejected, 1);
  const badCount = q({ type: 'count', cmdid: '8', tablename: 'user' }, 'user=lots');
  t.same(badCount.events, []);
  t.equal(badCount.rejected, 1);
  t.same(q({ type: 'count', cmdid: '8', tablename: 'user' }, '').rejected, 0);
  t.same(q({ type: 'count', cmdid: '8', tablename: 'user', count: '1' }, 'user=-1').events, []);
  const vm = q({ type: 'vmtable', cmdid: '9', tablename: '[APList]', count: '2' }, 'ssid=a\nssid=b');
  t.same(kinds(vm), ['unknownTable']);
  t.same(vm.reply, { kind: 'tableEcho', table: '[APList]', count: 2 });
  const account = q(
    { type: 'tabledata', cmdid: '10', tablename: 'transaction', count: '3', datafmt: '3' },
    new Uint8Array([...enc.encode('name=transaction.tgz\nsize=3\0'), 1, 2, 3]),
  );
  t.same(kinds(account), ['unknownTable']);
  t.same(account.reply, { kind: 'tableEcho', table: 'transaction', count: 3 });
  const nul = q({ type: 'tabledata', cmdid: '10', tablename: 'user' }, new Uint8Array([0x61, 0, 0x62]));
  t.same(nul.reply, { kind: 'tableEcho', table: 'user', count: 1 });
});

t.test('other endpoints', async (t) => {
  const file = codec.decode(req('GET', '/iclock/file', { SN: 'A', url: 'fw/1.bin' }));
  t.same(file.events, [{ type: 'fileRequest', url: 'fw/1.bin' }]);
  t.same(file.reply, { kind: 'file' });
  const accountFile = codec.decode(req('POST', '/iclock/file', { SN: 'A', table: 'transaction', cmdid: '1' }, 'data'));
  t.match(accountFile.events, [{ type: 'unknownTable', source: { kind: 'upload', table: 'transaction' } }]);
  t.match(codec.decode(req('POST', '/iclock/file', { SN: 'A' }, 'data')).events, [{ type: 'unknownTable', source: { table: 'file' } }]);
  t.same(codec.decode(req('POST', '/iclock/exchange', { SN: 'A' })).events, [{ type: 'keyExchange', exchangeType: '' }]);
  const rt = codec.decode(req('GET', '/iclock/rtdata', { SN: 'A', type: 'other' }));
  t.match(rt.events, [{ type: 'unknownTable', source: { table: 'rtdata:other' } }]);
  t.match(codec.decode(req('GET', '/iclock/rtdata', { SN: 'A' })).events, [{ type: 'unknownTable', source: { table: 'rtdata:' } }]);
  t.same(codec.decode(req('GET', '/iclock/fdata', { SN: 'A', table: 'ATTPHOTO', Stamp: '5' }, 'x')).events[0]?.type, 'unknownTable');
});
