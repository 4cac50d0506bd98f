// Every preset of COMMANDS.md §4/§6 encodes byte for byte to the documented wire string, on both dialects.
import t from 'tap';
import { PRESET_IDS, type PresetId } from '../../protocols/catalog.js';
import type { DeviceProfile, EncodeContext, EncodeResult } from '../../protocols/codec.js';
import { codecFor } from '../../protocols/index.js';

const v2 = codecFor('2.0.0');
const v3 = codecFor('3.0.0');
const p2: DeviceProfile = { version: '2.0.0', options: {} };
const p3: DeviceProfile = { version: '3.0.0', options: {} };
const ctx: EncodeContext = { timeZone: 'Europe/Berlin' };
const lines = (...l: string[]): EncodeResult => ({ ok: true, lines: l });
const unsupported = (reason: string): EncodeResult => ({ ok: false, code: 'unsupported', reason });
const invalid = (reason: string): EncodeResult => ({ ok: false, code: 'invalid', reason });
const enc2 = (preset: PresetId, params?: unknown, profile = p2, context = ctx) => v2.encodePreset({ preset, params }, profile, context);
const enc3 = (preset: PresetId, params?: unknown, profile = p3, context = ctx) => v3.encodePreset({ preset, params }, profile, context);

const FW = { url: 'https://fw.example.com/emfw.cfg', checksum: 'd41d8cd98f00b204e9800998ecf8427e', size: 1024 };

t.test('v2 wire strings (COMMANDS §6 column v2)', async (t) => {
  t.same(enc2('reboot'), lines('REBOOT'));
  t.same(enc2('info'), lines('INFO'));
  t.same(enc2('check'), lines('CHECK'));
  t.same(enc2('reload-options'), lines('RELOAD OPTIONS'));
  t.same(enc2('door-unlock'), lines('AC_UNLOCK'));
  t.same(enc2('clear-alarm'), lines('AC_UNALARM'));
  t.same(enc2('load-users'), lines('DATA QUERY USERINFO'));
  t.same(enc2('load-users', { pin: 1001 }), lines('DATA QUERY USERINFO PIN=1001'));
  t.same(enc2('load-users', { user_id: 7 }, p2, { ...ctx, userPin: 1002 }), lines('DATA QUERY USERINFO PIN=1002'));
  t.same(enc2('load-users', { user_id: 7 }), invalid('user_id 7 could not be resolved to a PIN'));
  t.same(enc2('enroll-biometric', { pin: 1001, user_id: 1 }), lines('ENROLL_FP PIN=1001\tFID=0\tRETRY=3\tOVERWRITE=1'));
  t.same(
    enc2('enroll-biometric', { pin: 5, user_id: 1, fid: 6, retry: 2, overwrite: 0 }),
    lines('ENROLL_FP PIN=5\tFID=6\tRETRY=2\tOVERWRITE=0'),
  );
  const vl = { version: '2.0.0' as const, options: { MultiBioDataSupport: '0:1:1:0:0:0:0:0:0:1' } };
  const nir = { version: '2.0.0' as const, options: { MultiBioDataSupport: '0:1:1:0:0:0:0:0:0:0' } };
  const legacy = { version: '2.0.0' as const, options: { FaceFunOn: '1' } };
  t.same(
    enc2('enroll-biometric', { pin: 9, user_id: 1, type: 'face' }, vl),
    lines('ENROLL_BIO TYPE=9\tPIN=9\tCardNo=\tRETRY=3\tOVERWRITE=1'),
  );
  t.same(
    enc2('enroll-biometric', { pin: 9, user_id: 1, type: 'face' }, nir),
    lines('ENROLL_BIO TYPE=2\tPIN=9\tCardNo=\tRETRY=3\tOVERWRITE=1'),
  );
  t.same(
    enc2('enroll-biometric', { pin: 9, user_id: 1, fid: 111 }, legacy),
    lines('ENROLL_BIO TYPE=2\tPIN=9\tCardNo=\tRETRY=3\tOVERWRITE=1'),
    'fid 111 = face whatever type says',
  );
  t.same(
    enc2('enroll-biometric', { pin: 9, user_id: 1, type: 'face' }),
    unsupported(
      'enroll-biometric is not supported on this Attendance PUSH (v2) device: the device reported no face support (MultiBioDataSupport, FaceFunOn)',
    ),
  );
  t.same(
    enc2('check-attendance', { startDate: '2015-07-29', endDate: '2015-07-29' }),
    lines('DATA QUERY ATTLOG StartTime=2015-07-29 00:00:00\tEndTime=2015-07-29 23:59:59'),
  );
  t.same(enc2('check-attendance'), lines('DATA QUERY ATTLOG StartTime=2000-01-01 00:00:00\tEndTime=2099-12-31 23:59:59'));
  t.same(enc2('check-attendance', { startDate: '2026-02-10', endDate: '2026-02-01' }), invalid('startDate is after endDate'));
  t.same(enc2('clear-log'), lines('CLEAR LOG'));
  t.same(enc2('clear-photo'), lines('CLEAR PHOTO'));
  t.same(enc2('clear-biodata'), lines('CLEAR BIODATA'));
  t.same(enc2('clear-data'), lines('CLEAR DATA'));
  t.same(
    enc2('firmware-upgrade', FW),
    lines('UPGRADE checksum=d41d8cd98f00b204e9800998ecf8427e,url=https://fw.example.com/emfw.cfg,size=1024'),
  );
  t.same(enc2('shell-command', { command: 'date' }), lines('SHELL date'));
  t.same(enc2('custom', { command: 'LOG' }), lines('LOG'));
  t.same(enc2('sync-users'), {
    ok: false,
    code: 'composite',
    reason: 'sync-users has no wire form of its own: it is expanded into per-user sync operations (COMMANDS §5)',
  });
});

t.test('v2 presets without a wire form fail with the COMMANDS §2.4 text', async (t) => {
  const msg = (preset: string, reason: string) => unsupported(`${preset} is not supported on Attendance PUSH (v2) devices: ${reason}`);
  t.same(enc2('door-open'), msg('door-open', 'the protocol cannot address a door or a duration; use door-unlock'));
  t.same(enc2('door-close'), msg('door-close', 'attendance terminals have no door-close command'));
  t.same(enc2('door-lock'), msg('door-lock', 'attendance terminals have no lock-down command'));
  t.same(enc2('normal-open'), msg('normal-open', 'attendance terminals cannot latch the door open'));
  t.same(enc2('cancel-alarm'), msg('cancel-alarm', 'the protocol has no per-door alarm command; use clear-alarm'));
  t.same(enc2('emergency-on'), msg('emergency-on', 'attendance terminals have no emergency mode'));
  t.same(enc2('emergency-off'), msg('emergency-off', 'attendance terminals have no emergency mode'));
});

t.test('v3 wire strings (COMMANDS §6 column v3)', async (t) => {
  t.same(enc3('reboot'), lines('CONTROL DEVICE 03000000'));
  t.same(
    enc3('info'),
    lines(
      'GET OPTIONS ~SerialNumber,FirmVer,~DeviceName,MachineType,LockCount,ReaderCount,AuxInCount,AuxOutCount,~MaxUserCount,~MaxAttLogCount,~MaxUserFingerCount,IPAddress,NetMask,GATEIPAddress,~ZKFPVersion',
    ),
  );
  t.same(enc3('check'), lines('GET OPTIONS ~SerialNumber,FirmVer'));
  t.same(enc3('door-open'), lines('CONTROL DEVICE 01010105'));
  t.same(enc3('door-open', { door_id: 2, duration: 30 }), lines('CONTROL DEVICE 0102011E'));
  t.same(enc3('door-open', { door_id: 1, duration: 254 }), lines('CONTROL DEVICE 010101FE'));
  t.same(enc3('door-open', { door_id: 4, duration: 10 }), lines('CONTROL DEVICE 0104010A'));
  t.same(enc3('door-open', { duration: 255 }), invalid('duration must be 1-254 seconds (use normal-open to latch)'));
  t.same(enc3('door-open', { duration: 0 }), invalid('duration must be 1-254 seconds (use normal-open to latch)'));
  t.same(
    enc3('door-open', { door_id: 2 }, { version: '3.0.0', options: { LockCount: '1' } }),
    invalid('door 2 does not exist on this device (LockCount=1)'),
  );
  t.same(enc3('door-open', { door_id: 5 }), invalid('invalid params for door-open: /door_id must be <= 4'));
  t.same(enc3('door-close'), lines('CONTROL DEVICE 01010100'));
  t.same(enc3('door-lock'), lines('CONTROL DEVICE 06010100'));
  t.same(enc3('door-unlock'), lines('CONTROL DEVICE 06010000'));
  t.same(enc3('normal-open'), lines('CONTROL DEVICE 010101FF'));
  t.same(enc3('cancel-alarm'), lines('CONTROL DEVICE 02000000'));
  t.same(enc3('clear-alarm'), lines('CONTROL DEVICE 02000000'));
  t.same(enc3('emergency-on'), lines('CONTROL DEVICE 07010000'));
  t.same(enc3('load-users'), lines('DATA QUERY tablename=user,fielddesc=*,filter=*'));
  t.same(enc3('load-users', { pin: 12 }), { ok: true, lines: ['DATA QUERY tablename=user,fielddesc=*,filter=*'], keepPin: '12' });
  t.same(enc3('load-users', { user_id: 3 }, p3, { ...ctx, userPin: 44 }), {
    ok: true,
    lines: ['DATA QUERY tablename=user,fielddesc=*,filter=*'],
    keepPin: '44',
  });
  t.same(enc3('load-users', { user_id: 3 }), invalid('user_id 3 could not be resolved to a PIN'));
  t.same(enc3('load-users', { pin: 0 }), invalid('invalid params for load-users: /pin must be >= 1'));
  t.same(enc3('enroll-biometric', { pin: 1, user_id: 1 }), lines('ENROLL_BIO type=1\tno=0\tpin=1\tretry=3\toverwrite=1'));
  t.same(
    enc3('enroll-biometric', { pin: 1, user_id: 1, fid: 6 }, p3, { ...ctx, userCardNo: '[15CD5B07]' }),
    lines('ENROLL_BIO type=1\tno=6\tpin=1\tcardno=123456789\tretry=3\toverwrite=1'),
  );
  t.same(
    enc3(
      'enroll-biometric',
      { pin: 1, user_id: 1, fid: 111 },
      { version: '3.0.0', options: { MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1' } },
    ),
    lines('ENROLL_BIO type=9\tno=0\tpin=1\tretry=3\toverwrite=1'),
  );
  t.same(
    enc3('enroll-biometric', { pin: 1, user_id: 1, type: 'face' }, { version: '3.0.0', options: { FaceFunOn: '1' } }),
    lines('ENROLL_BIO type=2\tno=0\tpin=1\tretry=3\toverwrite=1'),
  );
  t.same(
    enc3('enroll-biometric', { pin: 1, user_id: 1, type: 'face' }),
    unsupported(
      'enroll-biometric is not supported on this Security PUSH (v3) device: the device reported no face support (MultiBioDataSupport, FaceFunOn)',
    ),
  );
  t.same(
    enc3('enroll-biometric', { pin: 1, user_id: 1 }, p3, { ...ctx, userCardNo: 'abc' }),
    invalid('card_no must be a decimal card number'),
  );
  t.same(enc3('check-attendance', { startDate: '2026-01-01' }), {
    ok: true,
    lines: ['DATA QUERY tablename=transaction,fielddesc=*,filter=*'],
    keepWindow: { start: '2026-01-01 00:00:00', end: '2099-12-31 23:59:59' },
  });
  t.same(enc3('check-attendance', { startDate: '2026-13-01' }).ok, false);
  t.same(enc3('clear-log'), lines('DATA DELETE transaction *'));
  t.same(enc3('clear-biodata'), lines('DATA DELETE templatev10 *', 'DATA DELETE biodata *'));
  t.same(
    enc3('clear-data'),
    lines(
      'DATA DELETE userauthorize *',
      'DATA DELETE templatev10 *',
      'DATA DELETE biodata *',
      'DATA DELETE user *',
      'DATA DELETE transaction *',
    ),
  );
  t.same(
    enc3('clear-data', undefined, { version: '3.0.0', options: { BioPhotoFun: '1' } }),
    lines(
      'DATA DELETE userauthorize *',
      'DATA DELETE templatev10 *',
      'DATA DELETE biodata *',
      'DATA DELETE user *',
      'DATA DELETE transaction *',
      'DATA DELETE biophoto *',
      'DATA DELETE userpic *',
    ),
  );
  t.same(
    enc3('firmware-upgrade', FW),
    lines('UPGRADE checksum=d41d8cd98f00b204e9800998ecf8427e,url=https://fw.example.com/emfw.cfg,size=1024'),
  );
  t.same(enc3('custom', { command: 'CONTROL DEVICE 07020000' }), lines('CONTROL DEVICE 07020000'));
  t.same(enc3('sync-users').ok, false);
});

t.test('v3 presets without a wire form fail with the COMMANDS §2.4 text', async (t) => {
  const msg = (preset: string, reason: string) => unsupported(`${preset} is not supported on Security PUSH (v3) devices: ${reason}`);
  t.same(
    enc3('emergency-off'),
    msg(
      'emergency-off',
      'the protocol documents no operation that ends emergency mode (07 02 is an emergency lock-down, not a release); use door-close per door or reboot',
    ),
  );
  t.same(enc3('reload-options'), msg('reload-options', 'the protocol has no reload-options command'));
  t.same(enc3('clear-photo'), msg('clear-photo', 'the protocol has no command that deletes attendance photos'));
  t.same(enc3('shell-command', { command: 'date' }), msg('shell-command', 'the protocol has no shell command'));
});

t.test('firmware methods 2 and 3, URL override, bad URLs', async (t) => {
  const gw = { ...ctx, firmwareUrl: 'http://gw:8080/fw/42' };
  t.same(
    enc2('firmware-upgrade', FW, p2, gw),
    lines('UPGRADE checksum=d41d8cd98f00b204e9800998ecf8427e,url=http://gw:8080/fw/42,size=1024'),
  );
  t.same(
    enc2('firmware-upgrade', FW, p2, { ...ctx, firmwareMethod: 2 }),
    lines('UPGRADE type=1,checksum=d41d8cd98f00b204e9800998ecf8427e,size=1024,url=https://fw.example.com/emfw.cfg'),
  );
  const sub = { version: '3.0.0' as const, options: { SubcontractingUpgradeFunOn: '1' } };
  t.same(
    enc3('firmware-upgrade', FW, sub, { ...ctx, firmwareMethod: 3 }),
    lines('UPGRADE checksum=d41d8cd98f00b204e9800998ecf8427e,size=1024,url=https://fw.example.com/emfw.cfg,supportsubcontracting=1'),
  );
  t.same(
    enc3('firmware-upgrade', FW, p3, { ...ctx, firmwareMethod: 3 }),
    unsupported('firmware-upgrade is not supported on this Security PUSH (v3) device: upgrade method 3 needs SubcontractingUpgradeFunOn=1'),
  );
  t.same(enc2('firmware-upgrade', FW, p2, { ...ctx, firmwareUrl: 'http://a,b' }), invalid('invalid character in url'));
  t.same(enc2('firmware-upgrade', { ...FW, url: 'http://insecure' }).ok, false);
});

t.test('shell and custom checks', async (t) => {
  t.same(enc2('shell-command', { command: 'a\nb' }).ok, false);
  t.same(enc2('custom', { command: 'C:1:REBOOT' }).ok, false);
  t.same(enc2('custom', { command: 'é'.repeat(9000) }), invalid('command is longer than 16 KB'));
  t.same(enc2('custom', null).ok, false);
  t.same(enc2('reboot', { extra: 1 }).ok, false, 'no-param presets reject params');
  t.same(enc2('reboot', null), lines('REBOOT'));
  t.same(enc2('info', 5), invalid('invalid params for info: / must be object'));
});

t.test('every preset gives a wire form or a typed failure on both dialects', async (t) => {
  const params: Partial<Record<PresetId, unknown>> = {
    'enroll-biometric': { pin: 1, user_id: 1 },
    'firmware-upgrade': FW,
    'shell-command': { command: 'date' },
    custom: { command: 'INFO' },
  };
  for (const preset of PRESET_IDS) {
    for (const [codec, profile] of [
      [v2, p2],
      [v3, p3],
    ] as const) {
      const r = codec.encodePreset({ preset, params: params[preset] }, profile, ctx);
      if (r.ok) t.ok(r.lines.length > 0 && r.lines.every((l) => l.length > 0 && !/[\r\n\0]/.test(l)), `${preset} v${codec.major}`);
      else t.ok(['unsupported', 'composite'].includes(r.code) && r.reason.length > 0, `${preset} v${codec.major}: ${r.reason}`);
    }
  }
});

t.test('time sync: v2 CHECK, v3 packed local time; bad zones are typed failures', async (t) => {
  t.same(v2.encodeTimeSync(new Date(0), 'UTC'), lines('CHECK'));
  t.same(v3.encodeTimeSync(new Date(Date.UTC(2018, 1, 22, 13, 54, 54)), 'Europe/Berlin'), lines('SET OPTIONS DateTime=583080894'));
  t.same(v3.encodeTimeSync(new Date(0), 'Mars/Olympus'), invalid('unknown time zone "Mars/Olympus"'));
  t.same(v3.encodeTimeSync(new Date(0), 'UTC'), invalid('times before 2000 cannot be sent to the device'));
  t.same(enc3('check-attendance', { startDate: '2026-02-10', endDate: '2026-02-01' }), invalid('startDate is after endDate'));
  t.same(v3.encodePreset({ preset: 'nope' as PresetId }, p3, ctx), invalid('unknown preset nope'));
});
