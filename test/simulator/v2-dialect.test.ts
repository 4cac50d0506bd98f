import { createHash } from 'node:crypto';
import t from 'tap';
import { executeV2, v2Echo } from '../../src/simulator/v2-dialect.js';
import { harness, TMP } from './fixtures/harness.js';
import type { Harness, HarnessOptions } from './fixtures/harness.js';

const T = { timeout: 10_000 };
const run = (h: Harness, command: string) => executeV2(command, h.ctx);
const code = async (h: Harness, command: string): Promise<number> => (await run(h, command)).code;

/** a device with users 1 and 2 */
async function withUsers(opts: HarnessOptions = {}): Promise<Harness> {
  const h = harness(opts);
  await run(h, 'DATA UPDATE USERINFO PIN=1\tName=Ann Lee\tPri=0\tPasswd=\tCard=123456789\tGrp=1\tTZ=0000000100000000');
  await run(h, 'DATA UPDATE USERINFO PIN=2\tName=Bob');
  return h;
}

t.test('CMD echo is the command word [PUSH-v2 §8.4]', T, async (t) => {
  const cases: Array<[string, string]> = [
    ['DATA UPDATE USERINFO PIN=1', 'DATA'],
    ['data query ATTLOG', 'DATA'],
    ['CLEAR LOG', 'CLEAR_LOG'],
    ['CLEAR DATA', 'CLEAR_DATA'],
    ['CLEAR BIODATA', 'CLEAR_BIODATA'],
    ['CLEAR PHOTO', 'CLEAR PHOTO'],
    ['CLEAR ALL USERINFO', 'CLEAR ALL USERINFO'],
    ['Shell date', 'Shell'],
    ['SHELL ls', 'Shell'],
    ['SET OPTION A=1', 'SET OPTION'],
    ['SET X', 'SET'],
    ['GET OPTION FROM A', 'GET OPTION'],
    ['GET X', 'GET'],
    ['RELOAD OPTIONS', 'RELOAD OPTIONS'],
    ['RELOAD X', 'RELOAD'],
    ['INFO', 'INFO'],
    ['check', 'CHECK'],
    ['LOG', 'LOG'],
    ['REBOOT', 'REBOOT'],
    ['AC_UNLOCK', 'AC_UNLOCK'],
    ['AC_UNALARM', 'AC_UNALARM'],
    ['UPGRADE a=1', 'UPGRADE'],
    ['ENROLL_FP PIN=1', 'ENROLL_FP'],
    ['ENROLL_BIO TYPE=9', 'ENROLL_BIO'],
    ['USER ADD PIN=1', 'USER'],
  ];
  for (const [command, echo] of cases) t.equal(v2Echo(command), echo, command);
});

t.test('DATA UPDATE USERINFO stores and merges users; bad fields answer -1', T, async (t) => {
  const h = await withUsers();
  t.match(h.memory.users.get('1'), { pin: '1', name: 'Ann Lee', card: '123456789', group: 1, tz: '0000000100000000', uid: 1 });
  // [PUSH-v2 §9.5] Privilege= is not the v2 key: accepted, ignored (F1)
  t.equal(await code(h, 'DATA UPDATE USERINFO PIN=2\tPrivilege=14\tPri=6\tVerify=1\tViceCard=77'), 0);
  t.match(h.memory.users.get('2'), { name: 'Bob', privilege: 6, verify: 1, viceCard: '77' });
  t.equal(await code(h, 'DATA UPDATE USERINFO PIN=3\tCard=[15CD5B07]'), 0);
  for (const bad of [
    'DATA UPDATE USERINFO Name=x', // no PIN
    'DATA UPDATE USERINFO PIN=4 Name=Ann', // spaces instead of TABs
    'DATA UPDATE USERINFO PIN=4\\tName=Ann', // a literal backslash-t
    'DATA UPDATE USERINFO PIN=4\tName', // field without =
    'DATA UPDATE USERINFO PIN=4\tPri=x',
    'DATA UPDATE USERINFO PIN=4\tCard=12ab',
    'DATA UPDATE USERINFO PIN=4\tTZ=123',
    'DATA UPDATE',
  ])
    t.equal(await code(h, bad), -1, bad);
  t.equal(await code(h, 'DATA UPDATE USERINFO PIN=4\tTZ='), 0, 'empty TZ is fine');
});

t.test('capacity: -1001 for a new user or template beyond the limit', T, async (t) => {
  const h = await withUsers({ limits: { maxUsers: 2, maxTemplates: 1, maxAttendance: 10 } });
  t.equal(await code(h, 'DATA UPDATE USERINFO PIN=3'), -1001);
  t.equal(await code(h, 'DATA UPDATE USERINFO PIN=2\tName=still fine'), 0);
  t.equal(await code(h, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tSize=${TMP.length}\tValid=1\tTMP=${TMP}`), 0);
  t.equal(await code(h, `DATA UPDATE FINGERTMP PIN=1\tFID=1\tTMP=${TMP}`), -1001);
  t.equal(await code(h, 'ENROLL_FP PIN=1\tFID=2\tRETRY=3\tOVERWRITE=1'), -1001);
});

t.test('non-vendor syntax and unknown tables', T, async (t) => {
  const h = await withUsers();
  t.equal(await code(h, 'DATA DEL USERINFO PIN=1'), -1002, 'DATA DEL (F1)');
  t.equal(await code(h, 'DATA FP PIN=1'), -1002);
  t.equal(await code(h, 'USER ADD PIN=1'), -1002);
  t.equal(await code(h, 'DATA UPDATE user Pin=1'), -1004, 'v3 table name on a v2 device');
  t.equal(await code(h, 'DATA UPDATE FVEIN Pin=1'), -1004);
  t.equal(await code(h, 'DATA UPDATE constructor PIN=1'), -1004, 'no prototype lookups');
});

t.test('DATA UPDATE FINGERTMP [PUSH-v2 §9.3, COMMANDS §5.3]', T, async (t) => {
  const h = await withUsers();
  t.equal(await code(h, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tSize=${TMP.length}\tValid=1\tTMP=${TMP}`), 0);
  t.equal(await code(h, `DATA UPDATE FINGERTMP PIN=1\tFID=5\tSIZE=${TMP.length}\tVALID=3\tTMP=${TMP}`), 0, 'upper-case keys (fixture A37)');
  t.match(h.memory.templatesOf('1'), [
    { table: 'FINGERTMP', type: 1, no: 0, valid: 1, duress: 0, majorVer: 10, tmp: TMP },
    { table: 'FINGERTMP', type: 1, no: 5, valid: 3, duress: 1 },
  ]);
  t.equal(await code(h, `DATA UPDATE FINGERTMP PIN=9\tFID=0\tSize=${TMP.length}\tValid=1\tTMP=${TMP}`), -10, 'PIN not on the device');
  t.equal(await code(h, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tSize=27\tValid=1\tTMP=${TMP}`), -9, 'Size ≠ length');
  t.equal(await code(h, 'DATA UPDATE FINGERTMP PIN=1\tFID=0\tValid=1\tTMP=not*base64'), -11);
  for (const bad of [
    `DATA UPDATE FINGERTMP PIN=1\tFID=10\tTMP=${TMP}`,
    `DATA UPDATE FINGERTMP PIN=1\tTMP=${TMP}`,
    'DATA UPDATE FINGERTMP PIN=1\tFID=0',
    `DATA UPDATE FINGERTMP PIN=1\tFID=0\tSize=x\tTMP=${TMP}`,
  ]) {
    t.equal(await code(h, bad), -1, bad);
  }
  const fp12 = await withUsers({ fpVersion: 12 });
  t.equal(
    await code(fp12, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tValid=1\tTMP=${TMP}`),
    -11,
    'algorithm 12 refuses FINGERTMP [PUSH-v2 §11.3]',
  );
});

t.test('DATA UPDATE FACE and BIODATA', T, async (t) => {
  const plain = await withUsers();
  t.equal(await code(plain, `DATA UPDATE FACE PIN=1\tFID=0\tValid=1\tSize=${TMP.length}\tTMP=${TMP}`), -1004, 'no face module');
  t.equal(await code(plain, `DATA UPDATE BIODATA Pin=1\tNo=0\tType=9\tTmp=${TMP}`), -1004, 'no visible-light face sensor');
  const h = await withUsers({ faceSupport: true, fpVersion: 12 });
  t.equal(await code(h, `DATA UPDATE FACE PIN=1\tFID=0\tValid=1\tSize=${TMP.length}\tTMP=${TMP}`), 0);
  t.equal(await code(h, `DATA UPDATE FACE PIN=1\tFID=0\tSize=3\tTMP=${TMP}`), -9);
  t.equal(await code(h, `DATA UPDATE FACE PIN=1\tFID=x\tTMP=${TMP}`), -1);
  t.equal(await code(h, `DATA UPDATE FACE PIN=7\tTMP=${TMP}`), -10);
  t.equal(await code(h, 'DATA UPDATE FACE PIN=1\tFID=0'), -1, 'TMP missing');
  t.equal(await code(h, 'DATA UPDATE BIODATA Pin=1\tType=1'), -1, 'Tmp missing');
  t.equal(
    await code(h, `DATA UPDATE BIODATA Pin=1\tNo=3\tIndex=0\tValid=1\tDuress=0\tType=1\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=${TMP}`),
    0,
  );
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=1\tType=9\tTmp=${TMP}`), 0, 'versions default to the device');
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=1\tType=1\tMajorVer=10\tTmp=${TMP}`), -11, 'another algorithm version');
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=1\tType=1\tTmp=%%%`), -11);
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=1\tType=8\tTmp=${TMP}`), -1004, 'palm: no sensor');
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=1\tTmp=${TMP}`), -1, 'Type missing');
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=1\tType=1\tNo=x\tTmp=${TMP}`), -1);
  t.equal(await code(h, `DATA UPDATE BIODATA Pin=5\tType=1\tTmp=${TMP}`), -10);
  t.match(h.memory.templatesOf('1'), [
    { table: 'BIODATA', type: 1, no: 3, majorVer: 12, minorVer: 0 },
    { table: 'FACE', type: 2, majorVer: 7 },
    { table: 'BIODATA', type: 9, no: 0, majorVer: 40, minorVer: 1 },
  ]);
});

t.test('DATA UPDATE USERPIC / BIOPHOTO', T, async (t) => {
  const h = await withUsers();
  t.equal(await code(h, 'DATA UPDATE USERPIC PIN=1\tSize=4\tContent=AAAA'), 0);
  t.equal(await code(h, 'DATA UPDATE USERPIC PIN=2\tSize=100\tFormat=1\tUrl=http://x/y.jpg'), 0, 'URL form without content');
  t.equal(await code(h, 'DATA UPDATE USERPIC PIN=1\tSize=5\tContent=AAAA'), -2, 'size mismatch');
  t.equal(await code(h, 'DATA UPDATE USERPIC PIN=1\tSize=x'), -1);
  t.equal(await code(h, 'DATA UPDATE USERPIC PIN=8\tContent=AAAA'), -10);
  t.equal(await code(h, 'DATA UPDATE BIOPHOTO PIN=1\tType=2\tSize=4\tContent=AAAA\tFormat=0\tUrl=\tPostBackTmpFlag=0'), 0);
  t.equal(await code(h, 'DATA UPDATE BIOPHOTO PIN=2\tContent=AAAAAAAA'), 0);
  t.same(
    [...h.memory.userPhotos],
    [
      ['1', 4],
      ['2', 100],
    ],
  );
  t.match(h.memory.bioPhotos(), [
    { pin: '1', type: 2, size: 4 },
    { pin: '2', type: 9, size: 8 },
  ]);
});

t.test('DATA DELETE [PUSH-v2 §9.3]', T, async (t) => {
  const h = await withUsers({ faceSupport: true, fpVersion: 10 });
  for (const cmd of [
    `DATA UPDATE FINGERTMP PIN=1\tFID=0\tTMP=${TMP}`,
    `DATA UPDATE FINGERTMP PIN=1\tFID=1\tTMP=${TMP}`,
    `DATA UPDATE FINGERTMP PIN=2\tFID=0\tTMP=${TMP}`,
    `DATA UPDATE FACE PIN=2\tTMP=${TMP}`,
    `DATA UPDATE BIODATA Pin=2\tType=9\tNo=0\tTmp=${TMP}`,
    `DATA UPDATE BIODATA Pin=2\tType=1\tNo=4\tMajorVer=10\tTmp=${TMP}`,
    'DATA UPDATE USERPIC PIN=1\tContent=AAAA',
    'DATA UPDATE BIOPHOTO PIN=1\tContent=AAAA',
  ])
    t.equal(await code(h, cmd), 0, cmd);
  t.equal(await code(h, 'DATA DELETE FINGERTMP PIN=1\tFID=1'), 0);
  t.same(
    h.memory.templatesOf('1').map((x) => x.no),
    [0],
  );
  t.equal(await code(h, 'DATA DELETE FINGERTMP PIN=1\tFID=z'), -1);
  t.equal(await code(h, 'DATA DELETE BIODATA Pin=2\tType=9'), 0);
  t.same(
    h.memory.templatesOf('2').map((x) => `${x.table}/${x.type}/${x.no}`),
    ['FINGERTMP/1/0', 'BIODATA/1/4', 'FACE/2/0'],
  );
  t.equal(await code(h, 'DATA DELETE BIODATA Pin=2\tType=1\tNo=3'), 0, 'no match, nothing deleted');
  t.equal(h.memory.templatesOf('2').length, 3);
  t.equal(await code(h, 'DATA DELETE FACE PIN=2'), 0);
  t.equal(await code(h, 'DATA DELETE FINGERTMP PIN=2'), 0);
  t.same(
    h.memory.templatesOf('2').map((x) => x.table),
    ['BIODATA'],
  );
  t.equal(await code(h, 'DATA DELETE USERPIC PIN=1'), 0);
  t.equal(await code(h, 'DATA DELETE BIOPHOTO PIN=1'), 0);
  t.equal(h.memory.userPhotos.size + h.memory.bioPhotos().length, 0);
  t.equal(await code(h, 'DATA UPDATE USERPIC PIN=2\tContent=AAAA'), 0);
  // [PUSH-v2 §9.3] deleting a user also removes templates and photos
  t.equal(await code(h, 'DATA DELETE USERINFO PIN=2'), 0);
  t.notOk(h.memory.users.has('2'));
  t.equal(h.memory.templatesOf('2').length, 0);
  t.equal(h.memory.userPhotos.size, 0);
  t.equal(await code(h, 'DATA DELETE USERINFO PIN=42'), 0, 'deleting an absent user is idempotent');
  t.equal(await code(h, 'DATA DELETE USERINFO'), -1);
  t.equal(await code(h, 'DATA DELETE WORKCODE PIN=1'), -1004);
});

t.test('DATA QUERY USERINFO uploads OPERLOG USER lines [PUSH-v2 §6.10]', T, async (t) => {
  const h = await withUsers();
  t.equal(await code(h, 'DATA QUERY USERINFO'), 0);
  t.same(h.uploads, [
    {
      kind: 'table',
      table: 'OPERLOG',
      lines: [
        'USER PIN=1\tName=Ann Lee\tPri=0\tPasswd=\tCard=123456789\tGrp=1\tTZ=0000000100000000\tVerify=0\tViceCard=',
        'USER PIN=2\tName=Bob\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=\tVerify=0\tViceCard=',
      ],
    },
  ]);
  h.uploads.length = 0;
  t.equal(await code(h, 'DATA QUERY USERINFO PIN=2'), 0);
  t.same(
    h.uploads.map((u) => (u.kind === 'table' ? u.lines.length : -1)),
    [1],
  );
  h.uploads.length = 0;
  t.equal(await code(h, 'DATA QUERY USERINFO PIN=99'), 0, 'no such user: nothing uploaded');
  t.equal(h.uploads.length, 0);
  t.equal(await code(h, 'DATA QUERY USERINFO PIN=a b'), -1);
  const many = harness({ limits: { maxUsers: 300, maxTemplates: 1, maxAttendance: 1 } });
  for (let i = 1; i <= 250; i++) await run(many, `DATA UPDATE USERINFO PIN=${i}`);
  t.equal(await code(many, 'DATA QUERY USERINFO'), 0);
  t.same(
    many.uploads.map((u) => (u.kind === 'table' ? u.lines.length : -1)),
    [100, 100, 50],
    'chunks of 100 rows',
  );
});

t.test('DATA QUERY ATTLOG uploads rows in the window [COMMANDS §4.17]', T, async (t) => {
  const h = harness();
  h.memory.addAttendance('1', '2026-02-01 08:00:00', 0, 1);
  h.memory.addAttendance('1', '2026-02-05 17:00:00', 1, 1);
  h.memory.addAttendance('2', '2026-03-01 08:00:00', 0, 15);
  t.equal(await code(h, 'DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00\tEndTime=2026-02-10 23:59:59'), 0);
  t.same(h.uploads, [
    { kind: 'table', table: 'ATTLOG', lines: ['1\t2026-02-01 08:00:00\t0\t1\t0\t0\t0', '1\t2026-02-05 17:00:00\t1\t1\t0\t0\t0'] },
  ]);
  t.equal(await code(h, 'DATA QUERY ATTLOG StartTime=2026-03-01T00:00:00\tEndTime=2026-03-01T23:59:59'), 0, 'T form (A)');
  t.equal(await code(h, 'DATA QUERY ATTLOG StartTime=2027-01-01 00:00:00\tEndTime=2027-01-02 00:00:00'), -1, 'empty range: -1 (F1)');
  t.equal(await code(h, 'DATA QUERY ATTLOG StartTime=yesterday\tEndTime=2027-01-02 00:00:00'), -1);
  t.equal(await code(h, 'DATA QUERY ATTLOG'), -1);
});

t.test('DATA QUERY FINGERTMP and BIODATA', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  await run(h, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tTMP=${TMP}`);
  await run(h, `DATA UPDATE FINGERTMP PIN=1\tFID=2\tTMP=${TMP}`);
  await run(h, `DATA UPDATE BIODATA Pin=2\tType=9\tTmp=${TMP}`);
  t.equal(await code(h, 'DATA QUERY FINGERTMP PIN=1\tFID=2'), 0);
  t.same(h.uploads.pop(), { kind: 'table', table: 'OPERLOG', lines: [`FP PIN=1\tFID=2\tSize=${TMP.length}\tValid=1\tTMP=${TMP}`] });
  t.equal(await code(h, 'DATA QUERY FINGERTMP PIN=1'), 0);
  t.match(h.uploads.pop(), { lines: { length: 2 } });
  t.equal(await code(h, 'DATA QUERY FINGERTMP PIN=1\tFID=q'), -1);
  t.equal(await code(h, 'DATA QUERY FINGERTMP FID=1'), -1, 'PIN required');
  t.equal(await code(h, 'DATA QUERY BIODATA Type=9'), 0);
  t.same(h.uploads.pop(), {
    kind: 'table',
    table: 'BIODATA',
    lines: [`BIODATA Pin=2\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=40\tMinorVer=1\tFormat=0\tTmp=${TMP}`],
  });
  t.equal(await code(h, 'DATA QUERY BIODATA Type=9\tPIN=1'), 0);
  t.equal(await code(h, 'DATA QUERY BIODATA Type=9\tPIN=2\tNo=0'), 0);
  t.same(
    h.uploads.map((u) => (u.kind === 'table' ? u.lines.length : -1)),
    [1],
  );
  t.equal(await code(h, 'DATA QUERY BIODATA PIN=2'), -1, 'Type required');
});

t.test('control words', T, async (t) => {
  const h = await withUsers();
  t.match(await run(h, 'INFO'), { code: 0, cmd: 'INFO', lines: ['~DeviceName=BioGate Sim Attendance', /^MAC=00:17:61:/] });
  t.match(await run(h, 'CHECK'), { code: 0, effect: 'rehandshake' });
  t.match(await run(h, 'LOG'), { code: 0, effect: 'flush' });
  t.match(await run(h, 'REBOOT'), { code: 0, cmd: 'REBOOT', effect: 'restart' });
  t.match(await run(h, 'RELOAD OPTIONS'), { code: 0, cmd: 'RELOAD OPTIONS' });
  t.equal(await code(h, 'RELOAD NOW'), -1002);
  t.equal(await code(h, 'AC_UNLOCK'), 0);
  t.equal(h.memory.doors()[0]?.pulses, 1);
  h.memory.updateDoor(1, { alarm: true });
  t.equal(await code(h, 'AC_UNALARM'), 0);
  t.equal(h.memory.doors()[0]?.alarm, false);
  const lx35 = harness({ lockCount: 0 });
  t.equal(await code(lx35, 'AC_UNLOCK'), -1002, 'no lock on the model (F4)');
  t.equal(await code(lx35, 'AC_UNALARM'), 0);
  t.match(await run(h, 'Shell date'), { code: 0, cmd: 'Shell', content: 'Tue Mar 24 16:12:26 GMT 2026' });
  t.match(await run(h, 'SHELL ls -l'), { code: 0, content: 'sh: ls: simulated terminal' });
  t.match(await run(h, 'SHELL '), { code: -1, content: '' });
  t.equal(await code(h, 'SET OPTION IPAddress=192.168.1.225'), 0);
  t.equal(h.memory.options.get('IPAddress'), '192.168.1.225');
  t.equal(await code(h, 'SET OPTION broken'), -1);
  t.equal(await code(h, 'SET OPTIONS A=1'), -1002, 'the v3 word');
  t.match(await run(h, 'GET OPTION FROM IPAddress'), { code: 0, cmd: 'GET OPTION', lines: ['IPAddress=192.168.1.225'] });
  t.match(await run(h, 'GET OPTION FROM NoSuchKey'), { lines: ['NoSuchKey='] });
  t.equal(await code(h, 'GET OPTION FROM '), -1);
  t.equal(await code(h, 'GET OPTIONS A'), -1002);
});

t.test('CLEAR LOG / PHOTO / BIODATA / DATA', T, async (t) => {
  const h = await withUsers();
  await run(h, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tTMP=${TMP}`);
  h.memory.addAttendance('1', '2026-01-01 00:00:00', 0, 1);
  t.match(await run(h, 'CLEAR PHOTO'), { code: 0, cmd: 'CLEAR PHOTO' });
  t.match(await run(h, 'CLEAR LOG'), { code: 0, cmd: 'CLEAR_LOG' });
  t.equal(h.memory.attendance().length, 0);
  t.match(await run(h, 'CLEAR BIODATA'), { code: 0, cmd: 'CLEAR_BIODATA' });
  t.equal(h.memory.templates().length, 0);
  t.equal(h.memory.users.size, 2);
  t.match(await run(h, 'CLEAR DATA'), { code: 0, cmd: 'CLEAR_DATA' });
  t.equal(h.memory.users.size, 0);
  t.equal(await code(h, 'CLEAR ALL USERINFO'), -1002, 'TFT-only word');
});

t.test('ENROLL_FP / ENROLL_BIO [COMMANDS §4.16, PUSH-v2 §8.6]', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  t.match(await run(h, 'ENROLL_FP PIN=1\tFID=3\tRETRY=3\tOVERWRITE=1'), {
    code: 0,
    cmd: 'ENROLL_FP',
    enroll: { pin: '1', type: 1, no: 3 },
  });
  t.equal(await code(h, 'ENROLL_FP PIN=9\tFID=0\tRETRY=3\tOVERWRITE=1'), -10);
  t.equal(await code(h, 'ENROLL_FP PIN=1\tFID=12\tRETRY=3\tOVERWRITE=1'), -1);
  t.equal(await code(h, 'ENROLL_FP PIN=1 FID=1'), -1);
  t.equal(await code(h, 'ENROLL_FP PIN=1\tFID=1\tRETRY=x'), -1);
  await run(h, `DATA UPDATE FINGERTMP PIN=1\tFID=0\tTMP=${TMP}`);
  t.equal(await code(h, 'ENROLL_FP PIN=1\tFID=0\tRETRY=3\tOVERWRITE=0'), 2, 'finger already enrolled');
  t.equal(await code(h, 'ENROLL_FP PIN=1\tFID=0\tRETRY=3\tOVERWRITE=1'), 0);
  t.match(await run(h, 'ENROLL_BIO TYPE=9\tPIN=2\tCardNo=\tRETRY=3\tOVERWRITE=1'), {
    code: 0,
    cmd: 'ENROLL_BIO',
    enroll: { pin: '2', type: 9, no: 0 },
  });
  await run(h, `DATA UPDATE BIODATA Pin=2\tType=9\tTmp=${TMP}`);
  t.equal(await code(h, 'ENROLL_BIO TYPE=9\tPIN=2\tRETRY=3\tOVERWRITE=0'), 5, 'face template already exists');
  t.equal(await code(h, 'ENROLL_BIO PIN=2\tRETRY=3'), -1, 'TYPE missing');
  t.equal(await code(h, 'ENROLL_BIO TYPE=7\tPIN=2'), -1004, 'no finger-vein sensor');
});

t.test('UPGRADE: download, length and checksum [COMMANDS §4.22]', T, async (t) => {
  const firmware = Buffer.from('firmware image bytes');
  const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');
  const b64 = Buffer.from(firmware.toString('base64'), 'latin1');
  const m1 = harness({ firmware: b64 });
  t.match(await run(m1, `UPGRADE checksum=${md5(firmware)},url=fw/emfw.cfg,size=${firmware.length}`), {
    code: 0,
    cmd: 'UPGRADE',
    effect: 'restart',
  });
  t.same(m1.downloads, [['fw/emfw.cfg', false]]);
  t.equal(
    await code(m1, `UPGRADE checksum=${md5(b64)},url=fw/emfw.cfg,size=${b64.length}`),
    0,
    'size/checksum of the base64 text also match',
  );
  t.equal(await code(m1, `UPGRADE checksum=${md5(firmware)},url=fw/emfw.cfg,size=3`), -20);
  t.equal(await code(m1, `UPGRADE checksum=${'0'.repeat(32)},url=fw/emfw.cfg,size=${firmware.length}`), -19);
  const m2 = harness({ firmware });
  t.equal(await code(m2, `UPGRADE type=1,checksum=${md5(firmware)},size=${firmware.length},url=fw.bin`), 0, 'raw file');
  t.equal(await code(m2, `UPGRADE checksum=${md5(firmware)},size=${firmware.length},url=http://cdn/fw.bin,supportsubcontracting=1`), 0);
  t.same(m2.downloads, [
    ['fw.bin', false],
    ['http://cdn/fw.bin', true],
  ]);
  const none = harness();
  t.equal(await code(none, `UPGRADE checksum=${md5(firmware)},url=x,size=1`), -1008, 'download failed');
  for (const bad of [
    'UPGRADE',
    'UPGRADE checksum=abc,url=x,size=1',
    `UPGRADE checksum=${md5(firmware)},size=1`,
    `UPGRADE checksum=${md5(firmware)},url=x,size=-1`,
    `UPGRADE checksum=${md5(firmware)},url=,size=1`,
    `UPGRADE checksum=${md5(firmware)},url=x,size=1,junk`,
  ]) {
    t.equal(await code(none, bad), -1, bad);
  }
});
