// User and template sync operations (COMMANDS §5) byte for byte, with the §3 parameter encodings.
import t from 'tap';
import type { DeviceProfile, EncodeContext, EncodeResult, SyncOp } from '../../protocols/codec.js';
import { codecFor, userauthorizeRows } from '../../protocols/index.js';

const v2 = codecFor('2.0.0');
const v3 = codecFor('3.0.0');
const ctx: EncodeContext = { timeZone: 'Asia/Kolkata' };
const P2 = (options: Record<string, string> = {}): DeviceProfile => ({ version: '2.0.0', options });
const P3 = (options: Record<string, string> = {}): DeviceProfile => ({ version: '3.0.0', options });
const lines = (...l: string[]): EncodeResult => ({ ok: true, lines: l });
const invalid = (reason: string): EncodeResult => ({ ok: false, code: 'invalid', reason });
const s2 = (op: SyncOp, options?: Record<string, string>) => v2.encodeSync(op, P2(options), ctx);
const s3 = (op: SyncOp, options?: Record<string, string>, context = ctx) => v3.encodeSync(op, P3(options), context);
const B64 = 'c2FmZHNhd3Jyd3JIcmVyZXJIcnc=';

t.test('v2 user upsert (COMMANDS §5.1)', async (t) => {
  t.same(
    s2({ op: 'user.upsert', user: { pin: 1001, firstName: 'Ann', lastName: 'Lee', cardNo: '123456789' } }),
    lines('DATA UPDATE USERINFO PIN=1001\tName=Ann Lee\tPri=0\tPasswd=\tCard=123456789\tGrp=1\tTZ=0000000100000000'),
  );
  t.same(
    s2({
      op: 'user.upsert',
      user: { pin: 7, firstName: 'Bo', privilege: 14, password: 4321, group: 3, cardNo: '[15CD5B07]', verify: 1, viceCard: '42' },
    }),
    lines('DATA UPDATE USERINFO PIN=7\tName=Bo\tPri=14\tPasswd=4321\tCard=123456789\tGrp=3\tTZ=0000000100000000\tVerify=1\tViceCard=42'),
  );
  t.same(
    s2({ op: 'user.upsert', user: { pin: 7, lastName: 'Solo', timeZones: '0001000200000000' } }),
    lines('DATA UPDATE USERINFO PIN=7\tName=Solo\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0001000200000000'),
  );
  t.same(s2({ op: 'user.upsert', user: { pin: 7, firstName: 'A\tB' } }), invalid('invalid character in name'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, password: '1\n2' } }), invalid('invalid character in password'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, cardNo: 'abc' } }), invalid('card_no must be a decimal card number'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, viceCard: 'x' } }), invalid('card_no must be a decimal card number'));
  t.same(s2({ op: 'user.upsert', user: { pin: 'a b' } }), invalid('invalid character in pin'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, privilege: 1.5 } }), invalid('invalid privilege'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, group: 100 } }), invalid('invalid group'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, timeZones: 'xyz' } }), invalid('invalid TZ'));
  t.same(s2({ op: 'user.upsert', user: { pin: 7, verify: 0.5 } }), invalid('invalid verify'));
});

t.test('names are cut to 24 bytes (or MaxUserNameLen) without splitting a character', async (t) => {
  const long = { op: 'user.upsert' as const, user: { pin: 1, firstName: 'Maximilian-Alexander', lastName: 'Ölschläger' } };
  t.same(s2(long), lines('DATA UPDATE USERINFO PIN=1\tName=Maximilian-Alexander Öl\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000'));
  t.same(
    s2(long, { '~MaxUserNameLen': '10' }),
    lines('DATA UPDATE USERINFO PIN=1\tName=Maximilian\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000'),
  );
  const cjk = { op: 'user.upsert' as const, user: { pin: 1, firstName: '张伟张伟张伟张伟张伟' } };
  t.same(
    s2(cjk),
    lines('DATA UPDATE USERINFO PIN=1\tName=张伟张伟张伟张伟\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000'),
    '24 bytes = 8 CJK characters',
  );
});

t.test('v2 user delete', async (t) => {
  t.same(s2({ op: 'user.delete', pin: 1001 }), lines('DATA DELETE USERINFO PIN=1001'));
  t.same(s2({ op: 'user.delete', pin: '' }), invalid('invalid character in pin'));
});

t.test('v3 user upsert: user + userauthorize, dates by DateFmtFunOn, door mask (COMMANDS §5.1, §3.2, §3.4)', async (t) => {
  t.same(
    s3({ op: 'user.upsert', user: { pin: 1, password: 234 } }),
    lines(
      'DATA UPDATE user CardNo=\tPin=1\tPassword=234\tGroup=0\tStartTime=0\tEndTime=0\tName=\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=1\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1',
    ),
  );
  t.same(
    s3(
      {
        op: 'user.upsert',
        user: { pin: 5, firstName: 'Ann', cardNo: '99', group: 0, privilege: 6, startTime: '2026-03-01', endTime: '2026-03-31' },
      },
      { LockCount: '4', DateFmtFunOn: '0' },
    ),
    lines(
      'DATA UPDATE user CardNo=99\tPin=5\tPassword=\tGroup=0\tStartTime=20260301\tEndTime=20260331\tName=Ann\tPrivilege=6',
      'DATA UPDATE userauthorize Pin=5\tAuthorizeTimezoneId=1\tAuthorizeDoorId=15',
    ),
  );
  // 2018-02-22 14:54:54 local → 583080894; end date → 23:59:59
  t.same(
    s3(
      { op: 'user.upsert', user: { pin: 5, startTime: '2018-02-22T14:54:54', endTime: '2018-02-22' }, doors: [1, 3], timezoneId: 2 },
      { LockCount: '4', DateFmtFunOn: '1' },
    ),
    lines(
      `DATA UPDATE user CardNo=\tPin=5\tPassword=\tGroup=0\tStartTime=583080894\tEndTime=${583080894 - (14 * 3600 + 54 * 60 + 54) + 86399}\tName=\tPrivilege=0`,
      'DATA UPDATE userauthorize Pin=5\tAuthorizeTimezoneId=2\tAuthorizeDoorId=5',
    ),
  );
  // an instant with an offset is converted to the location zone (UTC 09:24:54 = 14:54:54 in Kolkata)
  t.same(
    s3({ op: 'user.upsert', user: { pin: 5, startTime: '2018-02-22T09:24:54Z' } }, { DateFmtFunOn: '1' }),
    lines(
      'DATA UPDATE user CardNo=\tPin=5\tPassword=\tGroup=0\tStartTime=583080894\tEndTime=0\tName=\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=5\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1',
    ),
  );
  t.same(s3({ op: 'user.upsert', user: { pin: 5, startTime: '2018-02-22T15:54:54+0100' } }, { DateFmtFunOn: '1' }).ok, true);
  const minutes = s3(
    { op: 'user.upsert', user: { pin: 5, startTime: '2018-02-22T14:54', endTime: '2018-02-22T09:25Z' } },
    { DateFmtFunOn: '1' },
  );
  t.same(
    minutes.ok && minutes.lines[0],
    `DATA UPDATE user CardNo=\tPin=5\tPassword=\tGroup=0\tStartTime=${583080894 - 54}\tEndTime=${583080894 + 6}\tName=\tPrivilege=0`,
    'seconds optional',
  );
  t.same(s3({ op: 'user.upsert', user: { pin: 5, startTime: 'soon' } }), invalid('invalid start_time'));
  t.same(
    s3({ op: 'user.upsert', user: { pin: 5, endTime: '1999-12-31' } }, { DateFmtFunOn: '1' }),
    invalid('end_time before 2000 cannot be sent to the device'),
  );
  t.same(s3({ op: 'user.upsert', user: { pin: 5 }, doors: [2] }, { LockCount: '1' }), invalid('doors must be 1 to 1'));
  t.same(s3({ op: 'user.upsert', user: { pin: 5 }, doors: [] }), invalid('doors must be 1 to 4'));
  t.same(s3({ op: 'user.upsert', user: { pin: 5 }, timezoneId: -1 }), invalid('invalid timezone id'));
  t.same(s3({ op: 'user.upsert', user: { pin: 5, firstName: 'x\ty' } }), invalid('invalid character in name'));
  t.same(s3({ op: 'user.upsert', user: { pin: 5, password: '\n' } }).ok, false);
  t.same(s3({ op: 'user.upsert', user: { pin: 5, cardNo: 'x' } }).ok, false);
  t.same(s3({ op: 'user.upsert', user: { pin: 5, privilege: -1 } }).ok, false);
  t.same(s3({ op: 'user.upsert', user: { pin: 5, group: -1 } }).ok, false);
  t.same(s3({ op: 'user.upsert', user: { pin: '!' } }).ok, false);
  t.same(
    s3({ op: 'user.upsert', user: { pin: 5, startTime: '2026-01-01' } }, {}, { timeZone: 'Nowhere/Land' }).ok,
    true,
    'dates need no zone',
  );
  t.same(
    s3({ op: 'user.upsert', user: { pin: 5, startTime: '2026-01-01T00:00:00Z' } }, {}, { timeZone: 'Nowhere/Land' }),
    invalid('unknown time zone "Nowhere/Land"'),
  );
  t.same(s3({ op: 'user.upsert', user: { pin: 5, startTime: '2026-01-01T00:00:00+25:00' } }).ok, false);
});

t.test('v3 user delete order (COMMANDS §5.2)', async (t) => {
  t.same(
    s3({ op: 'user.delete', pin: 1 }),
    lines('DATA DELETE userauthorize Pin=1', 'DATA DELETE templatev10 Pin=1', 'DATA DELETE user Pin=1'),
  );
  t.same(
    s3({ op: 'user.delete', pin: 1 }, { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1', BioPhotoFun: '1' }),
    lines(
      'DATA DELETE userauthorize Pin=1',
      'DATA DELETE templatev10 Pin=1',
      'DATA DELETE biodata Pin=1',
      'DATA DELETE biophoto PIN=1',
      'DATA DELETE userpic pin=1',
      'DATA DELETE user Pin=1',
    ),
  );
  t.same(s3({ op: 'user.delete', pin: -1 }).ok, false);
});

t.test('fingerprint templates (COMMANDS §5.3)', async (t) => {
  const fp = { pin: 1, type: 1, no: 0, data: B64 };
  t.same(s2({ op: 'template.upsert', template: fp }), lines(`DATA UPDATE FINGERTMP PIN=1\tFID=0\tSize=28\tValid=1\tTMP=${B64}`));
  t.same(
    s2({ op: 'template.upsert', template: { ...fp, duress: true } }, { FPVersion: '10' }),
    lines(`DATA UPDATE FINGERTMP PIN=1\tFID=0\tSize=28\tValid=3\tTMP=${B64}`),
  );
  const bio = { ...fp, no: 5, majorVer: '12', minorVer: '0' };
  t.same(
    s2({ op: 'template.upsert', template: bio }, { FPVersion: '12' }),
    lines(`DATA UPDATE BIODATA Pin=1\tNo=5\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=${B64}`),
  );
  t.same(
    s2({ op: 'template.upsert', template: { ...bio, duress: true, index: 1 } }, { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:0' }),
    lines(`DATA UPDATE BIODATA Pin=1\tNo=5\tIndex=1\tValid=1\tDuress=1\tType=1\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=${B64}`),
  );
  t.same(
    s2({ op: 'template.upsert', template: fp }, { FPVersion: '13' }),
    invalid('template has no algorithm version (MajorVer/MinorVer)'),
  );
  t.same(
    s3({ op: 'template.upsert', template: { ...fp, no: 6 } }),
    lines(`DATA UPDATE templatev10 Pin=1\tFingerID=6\tValid=1\tTemplate=${B64}`),
  );
  t.same(
    s3({ op: 'template.upsert', template: { ...fp, duress: true } }),
    lines(`DATA UPDATE templatev10 Pin=1\tFingerID=0\tValid=3\tTemplate=${B64}`),
  );
  t.same(
    s3({ op: 'template.upsert', template: bio }, { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1' }),
    lines(`DATA UPDATE biodata pin=1\tno=5\tindex=0\tvalid=1\tduress=0\ttype=1\tmajorver=12\tminorver=0\tformat=0\ttmp=${B64}`),
  );
  t.same(s2({ op: 'template.delete', pin: 1, type: 1 }), lines('DATA DELETE FINGERTMP PIN=1'));
  t.same(s2({ op: 'template.delete', pin: 1, type: 1, no: 3 }), lines('DATA DELETE FINGERTMP PIN=1\tFID=3'));
  t.same(s2({ op: 'template.delete', pin: 1, type: 1, no: 3 }, { FPVersion: '12' }), lines('DATA DELETE BIODATA Pin=1\tType=1\tNo=3'));
  t.same(s2({ op: 'template.delete', pin: 1, type: 1 }, { FPVersion: '12' }), lines('DATA DELETE BIODATA Pin=1\tType=1'));
  t.same(s3({ op: 'template.delete', pin: 1, type: 1 }), lines('DATA DELETE templatev10 Pin=1'));
  t.same(s3({ op: 'template.delete', pin: 1, type: 1, no: 6 }), lines('DATA DELETE templatev10 Pin=1\tFingerID=6'));
  t.same(
    s3({ op: 'template.delete', pin: 1, type: 1, no: 6 }, { MultiBioDataSupport: '0:1' }),
    lines('DATA DELETE biodata Type=1\tPin=1\tNo=6'),
  );
});

t.test('unified / face templates (COMMANDS §5.4)', async (t) => {
  const face = { pin: 2, type: 9, no: 0, majorVer: 5, minorVer: 8, data: B64 };
  t.same(
    s3({ op: 'template.upsert', template: face }),
    lines(`DATA UPDATE biodata pin=2\tno=0\tindex=0\tvalid=1\tduress=0\ttype=9\tmajorver=5\tminorver=8\tformat=0\ttmp=${B64}`),
  );
  t.same(s3({ op: 'template.upsert', template: face }, { MultiBioDataSupport: '0:1:1:0:0:0:0:0:0:0' }), {
    ok: false,
    code: 'unsupported',
    reason: 'sync-users is not supported on this Security PUSH (v3) device: the device does not accept biometric type 9',
  });
  t.same(
    s2({ op: 'template.upsert', template: face }, { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1' }),
    lines(`DATA UPDATE BIODATA Pin=2\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=5\tMinorVer=8\tFormat=0\tTmp=${B64}`),
  );
  t.same(
    s2({ op: 'template.upsert', template: { pin: 2, type: 2, no: 1, data: B64 } }, { FaceFunOn: '1' }),
    lines(`DATA UPDATE FACE PIN=2\tFID=1\tValid=1\tSize=28\tTMP=${B64}`),
  );
  t.same(s2({ op: 'template.upsert', template: face }, { FaceFunOn: '1' }), {
    ok: false,
    code: 'unsupported',
    reason: 'sync-users is not supported on this Attendance PUSH (v2) device: the device does not accept biometric type 9',
  });
  t.same(
    s2({ op: 'template.delete', pin: 2, type: 9, no: 0 }, { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1' }),
    lines('DATA DELETE BIODATA Pin=2\tType=9\tNo=0'),
  );
  t.same(s2({ op: 'template.delete', pin: 2, type: 2 }, { FaceFunOn: '1' }), lines('DATA DELETE FACE PIN=2'));
  t.same(s2({ op: 'template.delete', pin: 2, type: 9 }).ok, false);
  t.same(s3({ op: 'template.delete', pin: 2, type: 9 }), lines('DATA DELETE biodata Type=9\tPin=2'));
  t.same(s3({ op: 'template.delete', pin: 2, type: 9, no: 0 }), lines('DATA DELETE biodata Type=9\tPin=2\tNo=0'));
});

t.test('per-user delete of every template', async (t) => {
  t.same(s2({ op: 'template.delete', pin: 3 }), lines('DATA DELETE FINGERTMP PIN=3'));
  t.same(s2({ op: 'template.delete', pin: 3 }, { FaceFunOn: '1' }), lines('DATA DELETE FINGERTMP PIN=3', 'DATA DELETE FACE PIN=3'));
  t.same(
    s2({ op: 'template.delete', pin: 3 }, { FPVersion: '13', MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1' }),
    lines('DATA DELETE BIODATA Pin=3'),
  );
  t.same(s3({ op: 'template.delete', pin: 3 }), lines('DATA DELETE templatev10 Pin=3', 'DATA DELETE biodata Pin=3'));
});

t.test('template input checks', async (t) => {
  const base = { pin: 1, type: 1, no: 0, data: B64 };
  for (const codec of [v2, v3]) {
    const enc = (op: SyncOp) => codec.encodeSync(op, { version: codec.version, options: {} }, ctx);
    t.same(enc({ op: 'template.upsert', template: { ...base, data: 'not base64!' } }), invalid('template data is not valid base64'));
    t.same(enc({ op: 'template.upsert', template: { ...base, type: 256 } }), invalid('invalid biometric type'));
    t.same(enc({ op: 'template.upsert', template: { ...base, type: -1 } }), invalid('invalid biometric type'));
    t.same(enc({ op: 'template.upsert', template: { ...base, no: -1 } }), invalid('invalid template number'));
    t.same(enc({ op: 'template.upsert', template: { ...base, pin: 'x y' } }), invalid('invalid character in pin'));
    t.same(enc({ op: 'template.delete', pin: 1, type: 256 }), invalid('invalid biometric type'));
    t.same(enc({ op: 'template.delete', pin: 1, no: -2 }), invalid('invalid template number'));
    t.same(enc({ op: 'template.delete', pin: '' }), invalid('invalid character in pin'));
  }
  const bio = { ...base, type: 9, majorVer: '5', minorVer: '8' };
  t.same(s3({ op: 'template.upsert', template: { ...bio, majorVer: '5\t' } }), invalid('invalid character in majorVer'));
  t.same(s3({ op: 'template.upsert', template: { ...bio, minorVer: '\n' } }), invalid('invalid character in minorVer'));
  t.same(s3({ op: 'template.upsert', template: { ...bio, index: -1 } }), invalid('invalid template index'));
  t.same(s3({ op: 'template.upsert', template: { ...bio, format: 0.5 } }), invalid('invalid template format'));
  t.same(
    s3({ op: 'template.upsert', template: { ...bio, format: 2 } }),
    lines(`DATA UPDATE biodata pin=1\tno=0\tindex=0\tvalid=1\tduress=0\ttype=9\tmajorver=5\tminorver=8\tformat=2\ttmp=${B64}`),
    'Format copied from the template',
  );
});

t.test('v2 fingerprint fallback to BIODATA on -1002 / -11 / -12 (COMMANDS §2.5)', async (t) => {
  const op: SyncOp = { op: 'template.upsert', template: { pin: 1, type: 1, no: 2, majorVer: '10', minorVer: '0', data: B64 } };
  const expected = {
    ok: true,
    lines: [`DATA UPDATE BIODATA Pin=1\tNo=2\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=10\tMinorVer=0\tFormat=0\tTmp=${B64}`],
  };
  for (const code of [-1002, -11, -12]) t.same(v2.syncFallback(op, code, P2()), expected, `code ${code}`);
  t.equal(v2.syncFallback(op, -1, P2()), undefined);
  t.equal(v2.syncFallback(op, -1002, P2({ FPVersion: '12' })), undefined, 'already BIODATA');
  t.equal(v2.syncFallback({ op: 'user.delete', pin: 1 }, -1002, P2()), undefined);
  t.equal(
    v2.syncFallback({ op: 'template.upsert', template: { pin: 1, type: 1, no: 2, data: B64 } }, -1002, P2()),
    undefined,
    'no version: no fallback',
  );
  t.equal(v3.syncFallback(op, -1002, P3()), undefined);
});

t.test('v3 access tables: timezone rows, the rights query and the userauthorize rows of a user (PUSH-v3 §11.2, §10.4)', async (t) => {
  const values = Array.from({ length: 30 }, (_, i) => (i === 1 ? 830 * 65_536 + 1200 : 0));
  const row = `TimezoneId=2\t${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Hol1', 'Hol2', 'Hol3']
    .flatMap((d) => [1, 2, 3].map((i) => `${d}Time${i}`))
    .map((f, i) => `${f}=${values[i]}`)
    .join('\t')}`;
  t.same(s3({ op: 'timezones.set', timezones: [{ id: 2, values }] }), lines(`DATA UPDATE timezone ${row}`));
  t.same(s3({ op: 'timezones.set', timezones: [{ id: 0, values }] }), invalid('invalid timezone row'));
  t.same(s3({ op: 'timezones.set', timezones: [{ id: 2, values: [1] }] }), invalid('invalid timezone row'));
  t.same(s3({ op: 'timezones.set', timezones: [] }), invalid('no timezone rows'));
  t.same(s2({ op: 'timezones.set', timezones: [{ id: 2, values }] }).ok, false, 'not on v2');
  t.same(
    s3({ op: 'access.query' }),
    lines(
      'DATA QUERY tablename=userauthorize,fielddesc=*,filter=*',
      'DATA QUERY tablename=timezone,fielddesc=*,filter=*',
      'DATA QUERY tablename=holiday,fielddesc=*,filter=*',
    ),
  );
  t.same(s2({ op: 'access.query' }).ok, false, 'not on v2');
  // [PUSH-v3 §10.5] the doors BioGate gave settings are read back as the keys SET OPTIONS wrote.
  t.same(
    s3({ op: 'access.query', doors: [1, 3] }, { LockCount: '4' }),
    lines(
      'DATA QUERY tablename=userauthorize,fielddesc=*,filter=*',
      'DATA QUERY tablename=timezone,fielddesc=*,filter=*',
      'DATA QUERY tablename=holiday,fielddesc=*,filter=*',
      'GET OPTIONS Door1Drivertime,Door1KeepOpenTimeZone,Door3Drivertime,Door3KeepOpenTimeZone',
    ),
  );
  t.same(s3({ op: 'access.query', doors: [3] }, { LockCount: '2' }), invalid('doors must be 1 to 2'));
  // Levels over doors 1 and 3 on a two-lock terminal: door 3 is left out.
  t.same(
    userauthorizeRows(
      [
        { timezoneId: 2, doors: [1, 3] },
        { timezoneId: 3, doors: [3] },
      ],
      P3({ LockCount: '2' }),
    ),
    [{ timezoneId: 2, doorMask: 1 }],
  );
  t.same(userauthorizeRows(undefined, P3({ LockCount: '4' })), [{ timezoneId: 1, doorMask: 15 }], 'no levels: schedule 1, every door');
  t.same(userauthorizeRows([{ timezoneId: 0, doors: [1] }], P3()), invalid('invalid timezone id'));
});
