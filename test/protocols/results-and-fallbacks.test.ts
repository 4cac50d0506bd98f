// Return codes [PUSH-v2 §8.5–§8.7, PUSH-v3 §12], capability learning [COMMANDS §2.6], fallbacks
// [COMMANDS §2.5], batch ends, and version detection [PUSH-v2 §10.3].
import t from 'tap';
import type { PresetId } from '../../protocols/catalog.js';
import type { WireRequest } from '../../protocols/codec.js';
import {
  attendanceWindow,
  capabilityKey,
  classifyReturn,
  codecFor,
  inAttendanceWindow,
  commandOutcome,
  describeReturnCode,
  detectVersion,
  endsBatch,
  FALLBACKS,
  learnedUnsupportedMessage,
  presetFallback,
  CHECK_ATTENDANCE_BOTH_FORMATS_FAILED,
} from '../../protocols/index.js';

const v2 = codecFor('2.0.0');
const v3 = codecFor('3.0.0');

t.test('describeReturnCode', async (t) => {
  t.equal(describeReturnCode(2, -1002), 'command not supported by the device');
  t.equal(describeReturnCode('3.0.0', -708), 'command not supported by this firmware');
  t.equal(describeReturnCode('2.0.0', -708), 'unknown error');
  t.equal(v2.describeReturnCode(-1004), 'data inconsistent with the device configuration (table not present on this model)');
  t.equal(v2.describeReturnCode(-10), 'user PIN does not exist on the device');
  t.equal(v2.describeReturnCode(0), 'success');
  t.equal(v2.describeReturnCode(12), 'success (12)');
  t.equal(v2.describeReturnCode(-13), 'unknown error', 'v3 code not defined for v2');
  t.equal(v3.describeReturnCode(-13), 'command does not exist');
  t.equal(v3.describeReturnCode(-28), 'door-open refused during a normal-open period');
  t.equal(v3.describeReturnCode(-629), 'bad table name');
  t.equal(v3.describeReturnCode(-1002), 'command not supported by the device');
  t.equal(v3.describeReturnCode(-610), 'push-internal error');
  t.equal(v3.describeReturnCode(-705), 'push-internal error');
  t.equal(v3.describeReturnCode(-9999), 'unknown error');
  t.equal(v2.describeReturnCode(2, 'enroll-biometric'), 'the user already has that finger');
  t.equal(v2.describeReturnCode(0, 'enroll-biometric'), 'enrolled');
  t.equal(v2.describeReturnCode(9, 'enroll-biometric'), 'unexpected enrollment result 9');
  t.equal(v2.describeReturnCode(-1, 'enroll-biometric'), 'parameter error');
});

t.test('outcome (PUSH-v2 §8.7, PUSH-v3 §12)', async (t) => {
  t.same(v2.outcome(0), { status: 'success' });
  t.same(v2.outcome(3), { status: 'success' });
  t.same(v2.outcome(-1), { status: 'failed', message: 'device returned -1: parameter error' });
  t.same(v2.outcome(5, 'enroll-biometric'), { status: 'failed', message: 'device returned 5: template already exists on the device' });
  t.same(v3.outcome(-5000), { status: 'pending' });
  t.same(commandOutcome(2, -5000), { status: 'failed', message: 'device returned -5000: unknown error' });
  t.same(v3.outcome(-28, 'door-open'), { status: 'failed', message: 'device returned -28: door-open refused during a normal-open period' });
});

t.test('capability learning (COMMANDS §2.6)', async (t) => {
  for (const code of [-1002, -1004, -22]) t.equal(v2.classifyReturn(code), 'unsupported');
  for (const code of [-13, -708, -801, -100, -621, -629, -1002]) t.equal(v3.classifyReturn(code), 'unsupported');
  t.equal(v2.classifyReturn(0), 'supported');
  t.equal(v2.classifyReturn(7), 'supported');
  t.equal(v2.classifyReturn(-1), 'unknown');
  t.equal(classifyReturn(3, -22), 'unknown');
  t.equal(learnedUnsupportedMessage(-1002), 'not supported by this device (learned from Return -1002)');
  t.equal(capabilityKey('DATA UPDATE USERINFO PIN=1\tName=A'), 'DATA UPDATE USERINFO');
  t.equal(capabilityKey('DATA QUERY tablename=transaction,fielddesc=*,filter=*'), 'DATA QUERY transaction');
  t.equal(capabilityKey('DATA DELETE templatev10 *'), 'DATA DELETE templatev10');
  t.equal(capabilityKey('CONTROL DEVICE 06010100'), 'CONTROL DEVICE 06');
  t.equal(capabilityKey('CONTROL DEVICE'), 'CONTROL DEVICE');
  t.equal(capabilityKey('SET OPTIONS DateTime=1'), 'SET OPTIONS');
  t.equal(capabilityKey('GET OPTIONS ~SerialNumber,FirmVer'), 'GET OPTIONS');
  t.equal(capabilityKey('CLEAR LOG'), 'CLEAR LOG');
  t.equal(capabilityKey('CLEAR'), 'CLEAR');
  t.equal(capabilityKey('ENROLL_FP PIN=1\tFID=0'), 'ENROLL_FP');
  t.equal(capabilityKey('Shell date'), 'SHELL');
  t.equal(capabilityKey('AC_UNLOCK'), 'AC_UNLOCK');
});

t.test('batch ends (PUSH-v2 §7.3, PUSH-v3 §8.3)', async (t) => {
  t.ok(endsBatch('REBOOT'));
  t.ok(v3.endsBatch('CONTROL DEVICE 03000000'));
  t.ok(endsBatch('UPGRADE checksum=a,url=b,size=1'));
  t.notOk(endsBatch('INFO'));
  t.notOk(endsBatch('CONTROL DEVICE 01010105'));
  t.notOk(endsBatch('REBOOTX'));
});

t.test('fallbacks (COMMANDS §2.5)', async (t) => {
  t.equal(FALLBACKS.length, 8);
  const query = { preset: 'check-attendance' as const, params: { startDate: '2015-07-29', endDate: '2015-07-29' } };
  t.same(v2.presetFallback(query, -1), {
    ok: true,
    lines: ['DATA QUERY ATTLOG StartTime=2015-07-29T00:00:00\tEndTime=2015-07-29T23:59:59'],
  });
  t.same(v2.presetFallback(query, -1002), {
    ok: true,
    lines: ['CHECK'],
    note: 'range query unsupported; full re-upload requested',
    requestFullAttlogUpload: true,
  });
  t.equal(v2.presetFallback(query, -2), undefined);
  t.equal(v2.presetFallback({ preset: 'check-attendance', params: { startDate: 'x' } }, -1), undefined, 'params that no longer validate');
  t.equal(CHECK_ATTENDANCE_BOTH_FORMATS_FAILED, 'device returned -1 for both date formats: no records in range, or query not supported');
  t.equal(v3.presetFallback(query, -1), undefined, 'v3 has no check-attendance fallback');
  for (const code of [-13, -708, -801, -1002]) {
    t.same(v3.presetFallback({ preset: 'door-open', params: { door_id: 2, duration: 9 } }, code), {
      ok: true,
      lines: ['AC_UNLOCK'],
      note: 'door and duration not transmitted',
    });
    t.same(v3.presetFallback({ preset: 'cancel-alarm' }, code), { ok: true, lines: ['AC_UNALARM'] });
    t.same(v3.presetFallback({ preset: 'clear-alarm' }, code), { ok: true, lines: ['AC_UNALARM'] });
    t.same(v3.presetFallback({ preset: 'info' }, code), { ok: true, lines: ['INFO'] });
    t.same(v3.presetFallback({ preset: 'check' }, code), { ok: true, lines: ['INFO'] });
  }
  t.equal(v3.presetFallback({ preset: 'door-open' }, -28), undefined);
  t.equal(v2.presetFallback({ preset: 'door-unlock' }, -1002), undefined, 'LX35 AC_UNLOCK: no fallback');
  const noFallback: PresetId[] = ['load-users', 'reboot', 'enroll-biometric'];
  for (const preset of noFallback) t.equal(presetFallback(2, { preset }, -1002), undefined, preset);
});

t.test('v3 check-attendance window is applied by the runtime (COMMANDS §4.17)', async (t) => {
  const w = attendanceWindow({ startDate: '2017-01-19', endDate: null });
  t.same(w, { start: '2017-01-19 00:00:00', end: '2099-12-31 23:59:59' });
  t.ok(inAttendanceWindow('2017-01-19 15:14:48', w));
  t.notOk(inAttendanceWindow('2017-01-18 23:59:59', w));
  t.notOk(inAttendanceWindow('2100-01-01 00:00:00', w));
  t.same(attendanceWindow({}), { start: '2000-01-01 00:00:00', end: '2099-12-31 23:59:59' });
});

const req = (path: string, query: Record<string, string>): WireRequest => ({
  method: 'GET',
  path,
  query,
  headers: {},
  body: new Uint8Array(),
});

t.test('detectVersion (PUSH-v2 §10.3)', async (t) => {
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', options: 'all', pushver: '2.4.0' })), '2.0.0');
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', options: 'all', pushver: '3.1.2', DeviceType: 'acc' })), '3.0.0');
  t.equal(
    detectVersion(req('/iclock/cdata', { SN: 'A', options: 'all', pushver: '2.4.1', DeviceType: 'acc' })),
    '2.0.0',
    'pushver wins over DeviceType',
  );
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', options: 'all', DeviceType: 'ACC' })), '3.0.0');
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', options: 'all' })), '2.0.0');
  t.equal(detectVersion(req('/iclock/registry', { SN: 'A' })), '3.0.0');
  t.equal(detectVersion(req('/iclock/iclock/push', { SN: 'A' })), '3.0.0');
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', PUSHVER: '3.0.1' })), '3.0.0', 'parameter names case-insensitive');
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', pushver: 'x.y' })), '2.0.0', 'unparseable pushver ignored');
  t.equal(detectVersion(req('/iclock/cdata', { SN: 'A', pushver: '3.1.2' }), '2.0.0'), '2.0.0', 'administrator override first');
  t.equal(detectVersion(req('/iclock/getrequest', { SN: 'A', PushVersion: 'Ver 3.0.1' })), '2.0.0', 'PushVersion is never used');
});
