// Golden tests of issue #18 (device compatibility, round 2) over the fixtures written for it:
// A40–A44 (v2) and B25–B26 (v3), plus the corrected B17.
import { gzipSync } from 'node:zlib';
import t from 'tap';
import type { DecodeResult, DeviceEvent } from '../../protocols/codec.js';
import { charsetFor, codecFor, countRecords } from '../../protocols/index.js';
import { isPackedUpload, unpackTgz } from '../../src/devices/packed.js';
import { BioGateError } from '../../src/errors.js';
import { tgzOf } from '../../src/simulator/wire-bytes.js';
import { readFixture, responseBody, wireRequest } from './fixture-reader.js';
import { decodeExchange, replyFor, ZONE } from './golden-helpers.js';

const v2 = codecFor('2.0.0');
const v3 = codecFor('3.0.0');
const fx2 = (name: string) => readFixture('v2', name);
const fx3 = (name: string) => readFixture('v3', name);
const kinds = (r: DecodeResult) => r.events.map((e) => e.type);
const only = <T extends DeviceEvent['type']>(r: DecodeResult, type: T): Extract<DeviceEvent, { type: T }> => {
  const found = r.events.filter((e): e is Extract<DeviceEvent, { type: T }> => e.type === type);
  if (found.length !== 1) throw new Error(`expected one ${type} event, got ${kinds(r).join(',')}`);
  return found[0] as Extract<DeviceEvent, { type: T }>;
};
const ctx = { timeZone: ZONE };

t.test('B25 tables kept unparsed: one raw record each, counted per record; a declared count mismatch is -731', async (t) => {
  const f = fx3('b25-raw-tables-record-counts-vendor.http');
  const auth = decodeExchange(f, 1, v3);
  t.same(only(auth, 'rawRecords').records, [
    'userauthorize pin=1\tauthorizetimezoneid=1\tauthorizedoorid=1',
    'userauthorize pin=2\tauthorizetimezoneid=1\tauthorizedoorid=3',
  ]);
  t.same(only(auth, 'rawRecords').source, {
    kind: 'query',
    cmdId: '512',
    table: 'userauthorize',
    declaredCount: 2,
    packCount: 1,
    packIndex: 1,
  });
  t.same(
    only(auth, 'userRights').records,
    [
      { pin: '1', timezoneId: 1, doorMask: 1 },
      { pin: '2', timezoneId: 1, doorMask: 3 },
    ],
    'and typed, for a rights audit',
  );
  t.equal(replyFor(v3, auth).body, 'userauthorize=2', 'was userauthorize=1 whatever the size');
  const tz = decodeExchange(f, 2, v3);
  t.equal(only(tz, 'rawRecords').records.length, 2);
  const nulls = (n: number) => Array.from({ length: n }, () => null);
  t.same(
    only(tz, 'timezoneRows').records,
    [
      { id: 1, values: [0, 0, ...nulls(28)] },
      { id: 2, values: [35_390_000, 0, ...nulls(28)] },
    ],
    'typed too; intervals not sent are null (never equal to a schedule)',
  );
  t.equal(replyFor(v3, tz).body, 'timezone=2');
  const holiday = decodeExchange(f, 3, v3);
  t.same(holiday.events, [], 'nothing of a mismatching packet is kept');
  t.same(holiday.reply, { kind: 'countMismatch', table: 'holiday', declared: 3, received: 2 });
  t.equal(replyFor(v3, holiday).body, 'holiday=-731');
  t.equal(replyFor(v3, decodeExchange(f, 4, v3)).body, 'workcode=1');
  for (let n = 1; n <= 4; n++)
    t.equal(replyFor(v3, decodeExchange(f, n, v3)).body, responseBody(f.exchanges[n - 1]!.response), `exchange ${n}`);
});

t.test('a parsed table with a wrong declared count is -731 too; without a count the accepted number', async (t) => {
  const user = (count: string | undefined) =>
    v3.decode({
      method: 'POST',
      path: '/iclock/cdata',
      headers: {},
      query: { SN: 'S1', table: 'tabledata', tablename: 'user', ...(count === undefined ? {} : { count }) },
      body: new TextEncoder().encode('user uid=1\tpin=1\nuser uid=2\tpin=2\nuser uid=3'),
    });
  t.equal(replyFor(v3, user('3')).body, 'user=2', 'a malformed record is received, not accepted');
  t.equal(replyFor(v3, user('2')).body, 'user=-731');
  t.equal(replyFor(v3, user(undefined)).body, 'user=2');
});

t.test('v2 IDCARD and unknown tables: kept per record, OK: <records>', async (t) => {
  const r = v2.decode({
    method: 'POST',
    path: '/iclock/cdata',
    headers: {},
    query: { SN: 'S1', table: 'IDCARD' },
    body: new TextEncoder().encode('PIN=1\tSNNum=a\nPIN=2\tSNNum=b\n'),
  });
  t.same(only(r, 'rawRecords').records, ['PIN=1\tSNNum=a', 'PIN=2\tSNNum=b']);
  t.equal(v2.replies.upload(r.reply, countRecords(r.events)).body, 'OK: 2');
});

t.test('B17 corrected: a DATA COUNT packet is answered OK (vendor V4.8 §12.1.3)', async (t) => {
  const f = fx3('b17-querydata-count-query-vendor.http');
  const r = decodeExchange(f, 2, v3);
  t.same(r.events, [{ type: 'queryCount', cmdId: '288', table: 'user', count: 5 }]);
  t.equal(replyFor(v3, r).body, 'OK');
  t.equal(responseBody(f.exchanges[1]!.response), 'OK');
});

t.test('A40 packed OPERLOG: unpacked outside protocols/, decoded as if sent plain, OK: 3', async (t) => {
  const f = fx2('a40-operlog-packed-tgz-vendor.http');
  const wire = wireRequest(f.exchanges[0]!.request);
  t.ok(isPackedUpload(wire.path, wire.query));
  t.same(kinds(v2.decode(wire)), ['unknownTable'], 'still packed, the codec never reads it as text');
  const body = await unpackTgz(wire.body);
  const query = Object.fromEntries(Object.entries(wire.query).filter(([k]) => k !== 'ContentType'));
  const r = v2.decode({ ...wire, query, body });
  t.same(kinds(r), ['operationLogs', 'users']);
  t.equal(only(r, 'operationLogs').records.length, 2);
  t.equal(only(r, 'users').records[0]?.name, 'Ana');
  t.equal(v2.replies.upload(r.reply, countRecords(r.events)).body, 'OK: 3');
  t.equal(responseBody(f.exchanges[0]!.response), 'OK: 3');
});

t.test('packed uploads: limits against decompression bombs and garbage', async (t) => {
  const f = fx2('a40-operlog-packed-tgz-vendor.http');
  const good = wireRequest(f.exchanges[0]!.request).body;
  const code = async (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (e instanceof BioGateError ? e.code : String(e)),
    );
  t.equal(
    await code(unpackTgz(good, { compressedBytes: 10, expandedBytes: 1 << 20, entries: 10 })),
    'PAYLOAD_TOO_LARGE',
    'compressed size',
  );
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  t.ok(bomb.length < 100_000, 'a small body');
  t.equal(await code(unpackTgz(bomb)), 'PAYLOAD_TOO_LARGE', 'expanded size: 64 MiB of zeros stop at the limit');
  t.equal(await code(unpackTgz(good, { compressedBytes: 1 << 20, expandedBytes: 512, entries: 10 })), 'PAYLOAD_TOO_LARGE');
  t.equal(
    await code(unpackTgz(tarOf(['a.txt', 'b.txt', 'c.txt']), { compressedBytes: 1 << 20, expandedBytes: 1 << 20, entries: 2 })),
    'PAYLOAD_TOO_LARGE',
    'entry count',
  );
  t.equal(await code(unpackTgz(new TextEncoder().encode('OPLOG 4\t0\t2026-02-03 09:01:00'))), 'BAD_REQUEST', 'not gzip');
  t.equal(await code(unpackTgz(gzipSync(Buffer.from('x'.repeat(1000))))), 'BAD_REQUEST', 'gzip, not tar');
  t.equal((await unpackTgz(tarOf(['a.txt', 'b.txt']))).toString(), 'OPLOG a.txt\nOPLOG b.txt\n', 'files in order, each ending in LF');
});

t.test('A41 and B26: userpic / biophoto records broken before content= are split at the record prefix', async (t) => {
  const a41 = decodeExchange(fx2('a41-operlog-userpic-continued-line-field.http'), 1);
  t.equal(a41.rejected, 0);
  t.same(kinds(a41), ['operationLogs', 'userPhotos', 'bioPhotos']);
  t.match(only(a41, 'userPhotos').records, [{ pin: '1005', fileName: '1005.jpg', content: '/9j/4AAQ', usable: true }]);
  t.match(only(a41, 'bioPhotos').records, [{ pin: '1005', type: 9, content: '/9j/4BBQ' }]);
  t.equal(replyFor(v2, a41).body, 'OK: 3');
  const table = v2.decode({
    method: 'POST',
    path: '/iclock/cdata',
    headers: {},
    query: { SN: 'S1', table: 'USERPIC' },
    body: new TextEncoder().encode('PIN=1\tFileName=1.jpg\nContent=AAAA\nPIN=2\tContent=BBBB'),
  });
  t.same(
    only(table, 'userPhotos').records.map((p) => [p.pin, p.content]),
    [
      ['1', 'AAAA'],
      ['2', 'BBBB'],
    ],
    'table without tags: PIN= starts a record',
  );
  const b26 = decodeExchange(fx3('b26-biodata-palm-type10-userpic-continued-vendor.http'), 3, v3);
  t.equal(b26.rejected, 0);
  t.same(
    only(b26, 'userPhotos').records.map((p) => [p.pin, p.fileName, p.content]),
    [
      ['1', '1.jpg', '/9j/4AAQ'],
      ['2', '2.jpg', '/9j/4CCQ'],
    ],
  );
  t.equal(replyFor(v3, b26).body, 'userpic=2');
});

t.test('B26 visible-light palm (type 10), 11-slot masks, future types: accepted, stored, synced', async (t) => {
  const f = fx3('b26-biodata-palm-type10-userpic-continued-vendor.http');
  const reg = only(decodeExchange(f, 1, v3), 'registration');
  t.equal(reg.options.values.MultiBioDataSupport, '0:1:0:0:0:0:0:0:0:1:1');
  const bio = decodeExchange(f, 2, v3);
  t.equal(bio.rejected, 0, 'type 10 was rejected as invalid before');
  t.match(only(bio, 'bioTemplates').records, [
    { pin: '1', type: 10, majorVer: '1', template: 'AAAABBBB' },
    { pin: '1', type: 12, majorVer: '2', template: 'CCCCDDDD' },
  ]);
  t.equal(replyFor(v3, bio).body, 'biodata=2');
  const palm = { pin: 1, type: 10, no: 0, data: 'AAAABBBB', majorVer: '1', minorVer: '0' };
  const profile3 = { version: '3.0.0' as const, options: { MultiBioDataSupport: reg.options.values.MultiBioDataSupport ?? '' } };
  t.same(v3.encodeSync({ op: 'template.upsert', template: palm }, profile3, ctx), {
    ok: true,
    lines: ['DATA UPDATE biodata pin=1\tno=0\tindex=0\tvalid=1\tduress=0\ttype=10\tmajorver=1\tminorver=0\tformat=0\ttmp=AAAABBBB'],
  });
  t.same(v3.encodeSync({ op: 'template.delete', pin: 1, type: 10 }, profile3, ctx), {
    ok: true,
    lines: ['DATA DELETE biodata Type=10\tPin=1'],
  });
  const profile2 = { version: '2.0.0' as const, options: { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:0:1' } };
  t.same(v2.encodeSync({ op: 'template.upsert', template: palm }, profile2, ctx), {
    ok: true,
    lines: ['DATA UPDATE BIODATA Pin=1\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=10\tMajorVer=1\tMinorVer=0\tFormat=0\tTmp=AAAABBBB'],
  });
  // a future type goes as an opaque template to a device that states no mask
  const future = { ...palm, type: 12, majorVer: '2' };
  t.match(v3.encodeSync({ op: 'template.upsert', template: future }, { version: '3.0.0', options: {} }, ctx), {
    ok: true,
    lines: [/type=12\t/],
  });
  t.match(
    v3.encodeSync({ op: 'template.upsert', template: future }, profile3, ctx),
    { ok: false, code: 'unsupported' },
    'a device whose mask lacks the type is not sent it',
  );
});

t.test('A43 command results posted to /iclock/cdata without a table are command results', async (t) => {
  const r = decodeExchange(fx2('a43-command-results-on-cdata-field.http'), 1);
  t.same(kinds(r), ['commandResults']);
  t.match(only(r, 'commandResults').results, [
    { id: '301', returnCode: 0, cmd: 'DATA' },
    { id: '302', returnCode: -1002, cmd: 'DATA' },
  ]);
  t.equal(replyFor(v2, r).body, 'OK');
  const other = v2.decode({
    method: 'POST',
    path: '/iclock/cdata',
    headers: {},
    query: { SN: 'S1' },
    body: new TextEncoder().encode('AUTH=x'),
  });
  t.same(kinds(other), ['unknownTable'], 'another body without a table is still kept raw');
});

t.test('A44 language: GB2312 names with language 83; UTF-8 otherwise (Cyrillic included)', async (t) => {
  const wire = wireRequest(fx2('a44-userinfo-gb2312-name-field.http').exchanges[0]!.request);
  t.equal(only(v2.decode(wire, { language: '83' }), 'users').records[0]?.name, '张伟');
  t.match(only(v2.decode(wire), 'users').records[0]?.name, /\uFFFD/, 'without the language the name is lost');
  const cyr = { ...wire, body: new TextEncoder().encode('USER PIN=89\tName=Иван Петров\tPri=0') };
  t.equal(only(v2.decode(cyr, { language: '82' }), 'users').records[0]?.name, 'Иван Петров');
  t.equal(charsetFor('83'), 'gbk');
  t.equal(charsetFor('82'), 'utf-8', 'no document names another character set for Russian firmware');
  t.equal(charsetFor(undefined), 'utf-8');
  // [COMMANDS §5.1] the name is cut to MaxUserNameLen bytes of the device's character set
  const user = { pin: 88, firstName: '张伟', lastName: '张伟张伟' };
  const gbk = { version: '2.0.0' as const, options: { Language: '83', MaxUserNameLen: '8' } };
  const utf8 = { version: '2.0.0' as const, options: { MaxUserNameLen: '8' } };
  t.match(v2.encodeSync({ op: 'user.upsert', user }, gbk, ctx), { ok: true, lines: [/\tName=张伟 张\t/] }, 'GBK: 2 bytes a character');
  t.match(v2.encodeSync({ op: 'user.upsert', user }, utf8, ctx), { ok: true, lines: [/\tName=张伟 ?\t/] }, 'UTF-8: 3 bytes a character');
});

/** A gzip-compressed ustar archive of files whose content is `OPLOG ${name}` (no final LF). */
function tarOf(names: readonly string[]): Buffer {
  return tgzOf(Object.fromEntries(names.map((name) => [name, `OPLOG ${name}`])));
}
