// Parsing helpers of protocols/shared: lines and fields, key=value, parameter lists, ZK packed time,
// hex, cards, zoned time, command lines.
import t from 'tap';
import { isBase64 } from '../../protocols/shared/base64.js';
import { cardToHex, parseCard } from '../../protocols/shared/card.js';
import { parseDataCommand, unframe } from '../../protocols/shared/command-line.js';
import { doorMask, fromHex, hexByte, toHex } from '../../protocols/shared/hex.js';
import { parseKeyValues, pick } from '../../protocols/shared/key-value.js';
import { sample, splitFields, splitLines } from '../../protocols/shared/lines.js';
import { flagOrNull, intOrNull } from '../../protocols/shared/numbers.js';
import { optionValue, parseOptions } from '../../protocols/shared/options.js';
import { decodeText } from '../../protocols/shared/text.js';
import { formatCompactDate, formatWallClock, parseWallClock, zkDecode, zkEncode } from '../../protocols/shared/zk-time.js';
import { assertTimeZone, formatOffsetColon, offsetMinutes, wallClockIn } from '../../protocols/shared/zoned-time.js';

t.test('lines: LF or CR LF, blank lines skipped (PUSH-v2 §2.3)', async (t) => {
  t.same(splitLines('a\r\nb\n\n c \r\n\r\n'), ['a', 'b', ' c ']);
  t.same(splitLines(''), []);
  t.same(splitLines('x\r\r\n'), ['x\r'], 'only one CR stripped');
});

t.test('fields: TABs, trailing TAB, space fallback (PUSH-v2 §2.4)', async (t) => {
  t.same(splitFields('1\t2\t\t4\t'), { fields: ['1', '2', '', '4'], spaced: false });
  t.same(splitFields('\t'), { fields: [''], spaced: false });
  t.same(splitFields('  a   b c '), { fields: ['a', 'b', 'c'], spaced: true });
  t.same(splitFields('   '), { fields: [], spaced: true });
  t.equal(sample('x'.repeat(250)).length, 201);
  t.equal(sample('short'), 'short');
});

t.test('key=value: case-insensitive keys, first = only, first wins, space continuation (PUSH-v2 §2.5)', async (t) => {
  const kv = parseKeyValues(['PIN=1', 'TMP=abc==', 'pin=2', 'bare', '=x', 'Name=Ann'], false);
  t.same({ ...kv }, { pin: '1', tmp: 'abc==', name: 'Ann' });
  const spaced = parseKeyValues(['time=2017-01-10', '11:49:32', 'pin=0', 'name=Ann', 'Lee', 'pin=5', 'extra'], true);
  t.same({ ...spaced }, { time: '2017-01-10 11:49:32', pin: '0', name: 'Ann Lee' });
  t.equal(parseKeyValues(['orphan', 'a=1'], true).a, '1');
  t.equal(pick(kv, 'nope', 'name'), 'Ann');
  t.equal(pick(kv, 'nope'), undefined);
  t.equal(Object.getPrototypeOf(kv), null, 'no prototype: __proto__ keys are plain data');
  t.equal(parseKeyValues(['__proto__=x'], false).__proto__, 'x');
});

t.test('numbers', async (t) => {
  t.equal(intOrNull(' -1002 '), -1002);
  t.equal(intOrNull('+7'), 7);
  t.equal(intOrNull(''), null);
  t.equal(intOrNull('1.5'), null);
  t.equal(intOrNull(undefined), null);
  t.equal(intOrNull('1'.repeat(16)), null, 'beyond 15 digits');
  t.equal(flagOrNull('0'), false);
  t.equal(flagOrNull('1'), true);
  t.equal(flagOrNull('x'), null);
});

t.test('parameter lists (PUSH-v2 §5.2)', async (t) => {
  const { options, rejected } = parseOptions('~OEMVendor=ZKTECO CO., LTD.,FWVersion=Ver 8,Empty=,Dup=1,Dup=2');
  t.same({ ...options.values }, { OEMVendor: 'ZKTECO CO., LTD.', FWVersion: 'Ver 8', Empty: '', Dup: '2' });
  t.equal(options.keys.OEMVendor, '~OEMVendor');
  t.same(rejected, []);
  const lines = parseOptions('A=1\r\nB= spaced \r\ncontinued\n,\n');
  t.same({ ...lines.options.values }, { A: '1', B: ' spaced \ncontinued' }, 'LF separator restored for continuations');
  t.same(parseOptions('orphan,A=1').rejected, ['orphan']);
  t.same({ ...parseOptions('~=1,X=2').options.values }, { X: '2' });
  t.same({ ...parseOptions('a=b=c').options.values }, { a: 'b=c' });
  t.equal(optionValue({ '~MaxUserNameLen': '10' }, 'MaxUserNameLen'), '10');
  t.equal(optionValue({ lockcount: '2' }, 'LockCount'), '2');
  t.equal(optionValue({ '~lockcount': '3' }, 'LockCount'), '3');
  t.equal(optionValue({}, 'LockCount'), undefined);
});

t.test('ZK packed seconds (PUSH-v3 §13.1, COMMANDS §3.5)', async (t) => {
  t.equal(zkEncode({ year: 2018, month: 2, day: 22, hour: 14, minute: 54, second: 54 }), 583080894);
  t.same(zkDecode(548003688), { year: 2017, month: 1, day: 19, hour: 15, minute: 14, second: 48 });
  t.same(zkDecode(583050990), { year: 2018, month: 2, day: 22, hour: 6, minute: 36, second: 30 });
  t.same(zkDecode(0), { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0 });
  t.equal(zkEncode({ year: 1999, month: 12, day: 31, hour: 0, minute: 0, second: 0 }), undefined);
  t.equal(zkDecode(-1), undefined);
  t.equal(zkDecode(1.5), undefined);
  t.equal(formatWallClock({ year: 2018, month: 2, day: 3, hour: 4, minute: 5, second: 6 }), '2018-02-03 04:05:06');
  t.equal(formatWallClock({ year: 2018, month: 2, day: 3, hour: 4, minute: 5, second: 6 }, 'T'), '2018-02-03T04:05:06');
  t.equal(formatCompactDate({ year: 2026, month: 3, day: 1, hour: 0, minute: 0, second: 0 }), '20260301');
  t.same(parseWallClock('2026-03-01T07:08:09'), { year: 2026, month: 3, day: 1, hour: 7, minute: 8, second: 9 });
  t.equal(parseWallClock('2026-13-01 00:00:00'), undefined);
  t.equal(parseWallClock('2026-12-00 00:00:00'), undefined);
  t.equal(parseWallClock('2026-12-01 24:00:00'), undefined);
  t.equal(parseWallClock('2026-12-01 00:60:00'), undefined);
  t.equal(parseWallClock('2026-12-01 00:00:61'), undefined);
  t.equal(parseWallClock('yesterday'), undefined);
});

t.test('hex (COMMANDS §3.1–§3.2)', async (t) => {
  t.same([5, 10, 30, 254, 255, 0].map(hexByte), ['05', '0A', '1E', 'FE', 'FF', '00']);
  t.equal(hexByte(256), undefined);
  t.equal(hexByte(-1), undefined);
  t.equal(hexByte(1.5), undefined);
  t.equal(toHex(new Uint8Array([0x15, 0xcd, 0x5b, 0x07])), '15CD5B07');
  t.same(fromHex('15cd5B07'), new Uint8Array([0x15, 0xcd, 0x5b, 0x07]));
  t.equal(fromHex('123'), undefined);
  t.equal(fromHex('zz'), undefined);
  t.equal(doorMask([1]), 1);
  t.equal(doorMask([1, 2, 3, 4]), 15);
  t.equal(doorMask([3]), 4);
});

t.test('cards (COMMANDS §3.6)', async (t) => {
  t.equal(parseCard('[15CD5B07]'), '123456789');
  t.equal(parseCard(' 123456789 '), '123456789');
  t.equal(parseCard('007'), '7');
  t.equal(parseCard('[0102030405]'), String(0x0504030201), '5 bytes (37-bit cards)');
  t.equal(parseCard('[123]'), undefined, 'odd number of digits');
  t.equal(parseCard('[]'), undefined);
  t.equal(parseCard('12ab'), undefined);
  t.equal(cardToHex('123456789'), '[15CD5B07]');
  t.equal(cardToHex('4294967296'), undefined, 'does not fit 4 bytes');
  t.equal(cardToHex('4294967296', 5), '[0000000001]');
  t.equal(cardToHex('x'), undefined);
});

t.test('zoned time', async (t) => {
  const d = new Date(Date.UTC(2026, 6, 1, 23, 30, 0));
  t.same(wallClockIn(d, 'Asia/Tokyo'), { year: 2026, month: 7, day: 2, hour: 8, minute: 30, second: 0 });
  t.equal(offsetMinutes(d, 'Europe/Berlin'), 120);
  t.equal(offsetMinutes(d, 'America/Los_Angeles'), -420);
  t.equal(formatOffsetColon(-330), '-05:30');
  t.throws(() => assertTimeZone('Bad/Zone'), { name: 'ProtocolError', code: 'INVALID_TIME_ZONE' });
  t.doesNotThrow(() => assertTimeZone('UTC'));
});

t.test('text: UTF-8, GB2312 only for language 83 (PUSH-v2 §2.6)', async (t) => {
  const gb = new Uint8Array([0xd5, 0xc5, 0xce, 0xb0]); // 张伟 in GB2312
  t.equal(decodeText(gb, '83'), '张伟');
  t.equal(decodeText(new TextEncoder().encode('张伟'), '83'), '张伟');
  t.equal(decodeText(gb, '69'), new TextDecoder().decode(gb), 'other languages: UTF-8 with replacement');
  t.equal(decodeText(gb), new TextDecoder().decode(gb));
});

t.test('command lines read back', async (t) => {
  t.same(unframe('C:12:DATA UPDATE user Pin=1'), { id: '12', command: 'DATA UPDATE user Pin=1' });
  t.equal(unframe('OK'), undefined);
  const d = parseDataCommand('DATA UPDATE FINGERTMP PIN=1\tFID=11\tSIZE=28\tVALID=1\tTMP=c2Fm==');
  t.same(d && { ...d, fields: { ...d.fields } }, {
    verb: 'UPDATE',
    table: 'FINGERTMP',
    fields: { pin: '1', fid: '11', size: '28', valid: '1', tmp: 'c2Fm==' },
    all: false,
  });
  const q = parseDataCommand('DATA QUERY tablename=biodata,fielddesc=*,filter=Type=9\tPin=1');
  t.same(q && { ...q, fields: { ...q.fields } }, { verb: 'QUERY', table: 'biodata', fields: { type: '9', pin: '1' }, all: false });
  t.same(parseDataCommand('DATA QUERY tablename=user,fielddesc=*,filter=*'), { verb: 'QUERY', table: 'user', fields: {}, all: true });
  t.same(parseDataCommand('DATA DELETE user *'), { verb: 'DELETE', table: 'user', fields: {}, all: true });
  t.same(parseDataCommand('DATA COUNT user')?.table, 'user');
  t.equal(parseDataCommand('DATA QUERY tablename=,fielddesc=*,filter=*'), undefined);
  t.equal(parseDataCommand('INFO'), undefined);
});

t.test('base64 check (PUSH-v2 §6.4)', async (t) => {
  t.ok(isBase64('AAAA'));
  t.ok(isBase64('c2FmZHNhd3Jyd3JIcmVyZXJIcnc='));
  t.ok(isBase64('ocoYgZ6nVgELiKpa+/=='));
  t.notOk(isBase64(''));
  t.notOk(isBase64('AAA'));
  t.notOk(isBase64('A==='));
  t.notOk(isBase64('AA=A'));
  t.notOk(isBase64('AAA…'));
  t.notOk(isBase64('AAAAAAAAA.....'.slice(0, 12)));
  t.notOk(isBase64('AA-_'));
});
