import { createHash } from 'node:crypto';
import t from 'tap';
import { executeV3, v3Echo } from '../../src/simulator/v3-dialect.js';
import type { Upload } from '../../src/simulator/uploads.js';
import { harness, TMP } from './fixtures/harness.js';
import type { Harness, HarnessOptions } from './fixtures/harness.js';

const T = { timeout: 10_000 };
const run = (h: Harness, command: string, id = '1') => executeV3(id, command, h.ctx);
const code = async (h: Harness, command: string): Promise<number> => (await run(h, command)).code;

/** vendor example user (fixture B16) plus users 2 and 3 */
async function withUsers(opts: HarnessOptions = {}): Promise<Harness> {
  const h = harness({ protocol: 'v3', ...opts });
  await run(h, 'DATA UPDATE user CardNo=\tPin=1\tPassword=234\tGroup=0\tStartTime=0\tEndTime=0\tName=\tPrivilege=0');
  await run(h, 'DATA UPDATE user CardNo=123\tPin=2\tPassword=\tGroup=1\tStartTime=20260101\tEndTime=20261231\tName=Bob\tPrivilege=14');
  await run(h, 'DATA UPDATE user Pin=3\tName=Cy\tDisable=1');
  return h;
}

const body = (u: Upload | undefined): string => (u?.kind === 'querydata' ? u.body : '');

t.test('CMD echo [PUSH-v3 §9.2]', T, async (t) => {
  const cases: Array<[string, string]> = [
    ['DATA UPDATE user Pin=1', 'DATA UPDATE'],
    ['DATA DELETE user *', 'DATA DELETE'],
    ['DATA QUERY tablename=user', 'DATA QUERY'],
    ['DATA COUNT user', 'DATA COUNT'],
    ['DATA SELECT x', 'DATA'],
    ['CONTROL DEVICE 01010105', 'CONTROL DEVICE'],
    ['SET OPTIONS A=1', 'SET OPTIONS'],
    ['GET OPTIONS A', 'GET OPTIONS'],
    ['ENROLL_BIO type=9', 'ENROLL_BIO'],
    ['UPGRADE x', 'UPGRADE'],
    ['INFO', 'INFO'],
  ];
  for (const [command, echo] of cases) t.equal(v3Echo(command), echo, command);
});

t.test('DATA UPDATE user [COMMANDS §5.1]', T, async (t) => {
  const h = await withUsers();
  t.match(h.memory.users.get('1'), { pin: '1', password: '234', group: 0, startTime: '0', privilege: 0, card: '', disabled: false });
  t.match(h.memory.users.get('2'), { card: '123', group: 1, startTime: '20260101', endTime: '20261231', name: 'Bob', privilege: 14 });
  t.match(h.memory.users.get('3'), { disabled: true, group: 1 });
  t.equal(await code(h, 'DATA UPDATE user Pin=3\tDisable=0\tVerify=15\tDevID=1'), 0);
  t.match(h.memory.users.get('3'), { disabled: false, verify: 15 });
  t.equal(await code(h, 'DATA UPDATE user Pin=4\tPri=14'), -621, 'the v2 key is not a v3 column');
  t.equal(await code(h, 'DATA UPDATE user Pin=4\tGroup=one'), -11);
  t.equal(await code(h, 'DATA UPDATE user Pin=4\tStartTime=583080894'), -11, 'packed seconds although DateFmtFunOn=0');
  t.equal(await code(h, 'DATA UPDATE user Pin=4\tEndTime=2026-12-31'), -11);
  t.equal(await code(h, 'DATA UPDATE user Pin=4\tCardNo=12x'), -11);
  t.equal(await code(h, 'DATA UPDATE user Name=x'), -102, 'no Pin');
  t.equal(await code(h, 'DATA UPDATE user Pin=4\tName'), -102, 'field without =');
  t.equal(await code(h, 'DATA UPDATE user Pin=4 Name=Ann'), -102, 'spaces instead of TABs');
  t.equal(await code(h, 'DATA UPDATE'), -102);
  t.equal(await code(h, 'DATA UPDATE USERINFO PIN=4'), -100, 'v2 table name');
  t.equal(await code(h, 'DATA UPDATE timezone TimezoneId=1\tSunTime1=2359'), 0, 'accepted, not kept');
  t.equal(await code(h, 'data update user Pin=4'), -13, 'words are case-sensitive');
  t.equal(await code(h, 'DATA SELECT user'), -13);
  const full = await withUsers({ limits: { maxUsers: 3, maxTemplates: 0, maxAttendance: 1 } });
  t.equal(await code(full, 'DATA UPDATE user Pin=4'), -18);
});

t.test('DATA UPDATE userauthorize', T, async (t) => {
  const h = await withUsers({ lockCount: 2 });
  t.equal(await code(h, 'DATA UPDATE userauthorize Pin=1\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1\tDevID=1'), 0, 'fixture B16 form');
  t.equal(await code(h, 'DATA UPDATE userauthorize Pin=1\tAuthorizeTimezoneId=1\tAuthorizeDoorId=2'), 0, 'same zone replaces');
  t.equal(await code(h, 'DATA UPDATE userauthorize Pin=2'), 0, 'defaults: zone 1, all doors');
  t.same(h.memory.authorizations(), [
    { pin: '1', timezoneId: 1, doorMask: 2 },
    { pin: '2', timezoneId: 1, doorMask: 3 },
  ]);
  t.equal(await code(h, 'DATA UPDATE userauthorize Pin=1\tAuthorizeDoorId=all'), -11);
});

t.test('DATA UPDATE templatev10 / biodata [COMMANDS §5.3–§5.4]', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  t.equal(await code(h, `DATA UPDATE templatev10 Pin=1\tFingerID=6\tValid=1\tTemplate=${TMP}`), 0);
  t.equal(await code(h, `DATA UPDATE templatev10 Pin=1\tFingerID=22\tValid=1\tTemplate=${TMP}`), 0, 'fingerid + 16 = duress');
  t.match(h.memory.templatesOf('1'), [{ table: 'templatev10', no: 6, valid: 3, duress: 1 }], 'one slot per finger');
  t.match(h.memory.findTemplate('templatev10', '1', 1, 6), { valid: 3, duress: 1 }, 'same finger replaced by the duress one');
  t.equal(await code(h, 'DATA QUERY tablename=templatev10,fielddesc=*,filter=Pin=1'), 1);
  t.match(h.answers.pop(), { body: /^templatev10 size=28\tuid=1\tpin=1\tfingerid=22\tvalid=3\t/ }, 'duress written back as fingerid + 16');
  t.equal(await code(h, `DATA UPDATE templatev10 Pin=9\tFingerID=1\tTemplate=${TMP}`), -27);
  t.equal(await code(h, 'DATA UPDATE templatev10 Pin=1\tFingerID=1\tTemplate='), -26);
  t.equal(await code(h, 'DATA UPDATE templatev10 Pin=1\tFingerID=1'), -26, 'Template missing');
  t.equal(await code(h, `DATA UPDATE templatev10 Pin=1\tTemplate=${TMP}`), -11, 'FingerID missing');
  t.equal(await code(h, `DATA UPDATE templatev10 Pin=1\tFingerID=12\tTemplate=${TMP}`), -11);
  t.equal(await code(h, 'DATA UPDATE templatev10 Pin=1\tFingerID=1\tTemplate=@@'), -11);
  t.equal(
    await code(h, `DATA UPDATE biodata pin=2\tno=0\tindex=0\tvalid=1\tduress=0\ttype=9\tmajorver=40\tminorver=1\tformat=0\ttmp=${TMP}`),
    0,
  );
  t.equal(await code(h, `DATA UPDATE biodata pin=2\ttype=2\ttmp=${TMP}`), 0, 'versions default to the device');
  t.equal(await code(h, `DATA UPDATE biodata pin=2\ttype=9\tmajorver=5\ttmp=${TMP}`), -11, 'vendor example version 5 does not match 40');
  t.equal(await code(h, `DATA UPDATE biodata pin=2\ttype=8\ttmp=${TMP}`), -11, 'no palm sensor');
  t.equal(await code(h, `DATA UPDATE biodata pin=2\ttmp=${TMP}`), -11, 'type missing');
  t.equal(await code(h, `DATA UPDATE biodata pin=2\ttype=9\tno=x\ttmp=${TMP}`), -11);
  t.equal(await code(h, 'DATA UPDATE biodata pin=2\ttype=9\ttmp='), -26);
  t.equal(await code(h, 'DATA UPDATE biodata pin=2\ttype=9'), -26, 'tmp missing');
  t.equal(await code(h, `DATA UPDATE biodata pin=7\ttype=9\ttmp=${TMP}`), -27);
  t.match(h.memory.templatesOf('2'), [
    { table: 'biodata', type: 2, majorVer: 7 },
    { table: 'biodata', type: 9, majorVer: 40, minorVer: 1 },
  ]);
  const fp12 = await withUsers({ fpVersion: 12 });
  t.equal(await code(fp12, `DATA UPDATE templatev10 Pin=1\tFingerID=1\tTemplate=${TMP}`), -100, 'no templatev10 table');
  t.equal(await code(fp12, `DATA UPDATE biodata pin=1\tno=1\ttype=1\tmajorver=12\ttmp=${TMP}`), 0);
  const full = await withUsers({ limits: { maxUsers: 5, maxTemplates: 0, maxAttendance: 1 } });
  t.equal(await code(full, `DATA UPDATE templatev10 Pin=1\tFingerID=1\tTemplate=${TMP}`), -18);
});

t.test('DATA UPDATE biophoto / userpic', T, async (t) => {
  const h = await withUsers();
  t.equal(await code(h, 'DATA UPDATE biophoto PIN=1\tType=9\tSize=4\tContent=AAAA\tFormat=0\tUrl=\tPostBackTmpFlag=0'), 0);
  t.equal(await code(h, 'DATA UPDATE userpic pin=1\tsize=4\tformat=0\turl=\tcontent=AAAA'), 0);
  t.equal(await code(h, 'DATA UPDATE userpic pin=2\tcontent=AAAAAAAA'), 0);
  t.equal(await code(h, 'DATA UPDATE biophoto PIN=2\tcontent=AA'), 0);
  t.equal(await code(h, 'DATA UPDATE userpic pin=9\tcontent=AAAA'), -27);
  t.equal(await code(h, 'DATA UPDATE userpic pin=3'), 0, 'no size, no content');
  t.equal(await code(h, 'DATA UPDATE userpic pin=1\tsize=big'), -11);
  t.same(
    [...h.memory.userPhotos],
    [
      ['1', 4],
      ['2', 8],
      ['3', 0],
    ],
  );
  t.match(h.memory.bioPhotos(), [
    { pin: '1', type: 9, size: 4 },
    { pin: '2', type: 9, size: 2 },
  ]);
});

t.test('DATA DELETE [PUSH-v3 §11.3, COMMANDS §5.2]', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  for (const cmd of [
    'DATA UPDATE userauthorize Pin=1',
    'DATA UPDATE userauthorize Pin=2',
    `DATA UPDATE templatev10 Pin=1\tFingerID=6\tTemplate=${TMP}`,
    `DATA UPDATE templatev10 Pin=1\tFingerID=7\tTemplate=${TMP}`,
    `DATA UPDATE biodata pin=1\ttype=9\ttmp=${TMP}`,
    `DATA UPDATE biodata pin=2\ttype=9\ttmp=${TMP}`,
    'DATA UPDATE biophoto PIN=1\tContent=AA',
    'DATA UPDATE userpic pin=1\tcontent=AA',
  ])
    t.equal(await code(h, cmd), 0, cmd);
  t.equal(await code(h, 'DATA DELETE userauthorize Pin=1'), 0);
  t.equal(await code(h, 'DATA DELETE templatev10 Pin=1\tFingerID=6'), 0);
  t.same(
    h.memory.templatesOf('1').map((x) => `${x.table}/${x.no}`),
    ['templatev10/7', 'biodata/0'],
  );
  t.equal(await code(h, 'DATA DELETE biodata Type=9\tPin=1'), 0);
  t.equal(await code(h, 'DATA DELETE biophoto PIN=1'), 0);
  t.equal(await code(h, 'DATA DELETE userpic pin=1'), 0);
  // no cascade: the vendor sequence deletes templates first
  t.equal(await code(h, 'DATA DELETE user Pin=1'), 0);
  t.notOk(h.memory.users.has('1'));
  t.same(
    h.memory.templatesOf('1').map((x) => x.table),
    ['templatev10'],
    'orphan template stays',
  );
  t.equal(await code(h, 'DATA DELETE templatev10 *'), 0);
  t.equal(await code(h, 'DATA DELETE biodata Pin=2'), 0);
  t.equal(h.memory.templates().length, 0);
  t.same(
    h.memory.authorizations().map((a) => a.pin),
    ['2'],
  );
  h.memory.addAttendance('2', '2026-01-01 08:00:00', 0, 1);
  t.equal(await code(h, 'DATA DELETE transaction Pin=2'), -101, 'only * for transactions');
  t.equal(await code(h, 'DATA DELETE transaction *'), 0);
  t.equal(h.memory.attendance().length, 0);
  t.equal(await code(h, 'DATA DELETE user *'), 0);
  t.equal(h.memory.users.size, 0);
  t.equal(await code(h, 'DATA DELETE user Name=Bob'), -101, 'not a condition field');
  t.equal(await code(h, 'DATA DELETE user'), -102);
  t.equal(await code(h, 'DATA DELETE user NewRecord'), -102);
  t.equal(await code(h, 'DATA DELETE'), -102);
  t.equal(await code(h, 'DATA DELETE USERINFO PIN=1'), -100);
  t.equal(await code(h, 'DATA DELETE holiday *'), 0);
});

t.test('DATA QUERY answers on querydata, Return = records [PUSH-v3 §10.4]', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  t.equal(await code(h, 'DATA QUERY tablename=user,fielddesc=*,filter=*'), 3);
  t.same(h.answers.pop(), {
    kind: 'querydata',
    type: 'tabledata',
    cmdid: '1',
    tablename: 'user',
    count: 3,
    packcnt: 1,
    packidx: 1,
    body: [
      'user uid=1\tcardno=\tpin=1\tpassword=234\tgroup=0\tstarttime=0\tendtime=0\tname=\tprivilege=0\tdisable=0\tverify=0',
      'user uid=2\tcardno=123\tpin=2\tpassword=\tgroup=1\tstarttime=20260101\tendtime=20261231\tname=Bob\tprivilege=14\tdisable=0\tverify=0',
      'user uid=3\tcardno=\tpin=3\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=Cy\tprivilege=0\tdisable=1\tverify=0',
    ].join('\n'),
  });
  t.equal(await code(h, 'DATA QUERY tablename=user,fielddesc=*,filter=Pin=2'), 1);
  t.equal(await code(h, 'DATA QUERY tablename=user,fielddesc=*'), 3, 'no filter = all');
  h.answers.length = 0;
  t.equal(await code(h, 'DATA QUERY tablename=user,fielddesc=*,filter=Pin=42'), 0, 'nothing matched: no packet');
  t.equal(h.answers.length, 0);

  await run(h, 'DATA UPDATE userauthorize Pin=1\tAuthorizeDoorId=1');
  await run(h, `DATA UPDATE templatev10 Pin=1\tFingerID=6\tTemplate=${TMP}`);
  await run(h, `DATA UPDATE biodata pin=2\ttype=9\ttmp=${TMP}`);
  await run(h, 'DATA UPDATE biophoto PIN=2\tSize=10');
  await run(h, 'DATA UPDATE userpic pin=3\tSize=20');
  const answered = async (command: string): Promise<[number, string]> => [await code(h, command), body(h.answers.pop())];
  t.same(await answered('DATA QUERY tablename=userauthorize,fielddesc=*,filter=*'), [
    1,
    'userauthorize pin=1\tauthorizetimezoneid=1\tauthorizedoorid=1',
  ]);
  t.same(await answered('DATA QUERY tablename=templatev10,fielddesc=*,filter=Pin=1'), [
    1,
    `templatev10 size=${TMP.length}\tuid=1\tpin=1\tfingerid=6\tvalid=1\ttemplate=${TMP}\tresverd=\tendtag=`,
  ]);
  t.same(await answered('DATA QUERY tablename=biodata,fielddesc=*,filter=Type=9\tPin=2'), [
    1,
    `biodata pin=2\tno=0\tindex=0\tvalid=1\tduress=0\ttype=9\tmajorver=40\tminorver=1\tformat=0\ttmp=${TMP}`,
  ]);
  t.same(await answered('DATA QUERY tablename=biophoto,fielddesc=*,filter=*'), [
    1,
    'biophoto pin=2\tfilename=2.jpg\ttype=9\tsize=10\tcontent=',
  ]);
  t.same(await answered('DATA QUERY tablename=userpic,fielddesc=*,filter=*'), [1, 'userpic pin=3\tfilename=3.jpg\tsize=20\tcontent=']);
  await run(h, 'DATA DELETE user Pin=1');
  t.match((await answered('DATA QUERY tablename=templatev10,fielddesc=*,filter=*'))[1], /\tuid=0\t/, 'orphan template has no uid');

  t.equal(await code(h, 'DATA QUERY tablename=timezone,fielddesc=*,filter=*'), 0, 'known table without rows');
  t.equal(await code(h, 'DATA QUERY tablename=nosuchtable,fielddesc=*,filter=*'), -629, 'BioFace A1 answer (F6)');
  t.equal(await code(h, 'DATA QUERY tablename=timezone,fielddesc=*,filter=TimezoneId=1'), -101, 'no conditions on tables without rows');
  t.equal(await code(h, 'DATA QUERY tablename=user,fielddesc=*,filter=Name=Bob'), -101);
  t.equal(await code(h, 'DATA QUERY tablename=user,fielddesc=*,filter=Pin'), -102);
  t.equal(await code(h, 'DATA QUERY fielddesc=*,filter=*'), -102);
  t.equal(await code(h, 'DATA QUERY tablename=user,junk'), -102);
});

t.test('DATA QUERY transaction, NewRecord and packets', T, async (t) => {
  const h = harness({ protocol: 'v3', limits: { maxUsers: 10, maxTemplates: 10, maxAttendance: 1000 } });
  t.equal(await code(h, 'DATA QUERY tablename=transaction,fielddesc=*,filter=NewRecord'), 0, 'empty log');
  h.memory.addAttendance('7', '2017-01-19 15:14:48', 2, 200);
  t.equal(await code(h, 'DATA QUERY tablename=transaction,fielddesc=*,filter=NewRecord'), 1);
  t.equal(
    body(h.answers.pop()),
    'transaction cardno=0\tpin=7\tverified=200\tdoorid=1\teventtype=0\tinoutstate=2\ttime_second=548003688\tindex=1\tsitecode=0\tdevid=1',
    'time_second in ZK packed seconds (fixture B17)',
  );
  t.equal(await code(h, 'DATA QUERY tablename=transaction,fielddesc=*,filter=NewRecord'), 0, 'already answered');
  for (let i = 0; i < 150; i++) h.memory.addAttendance(String(i % 3), '2026-01-01 08:00:00', 0, 1);
  t.equal((await run(h, 'DATA QUERY tablename=transaction,fielddesc=*,filter=Pin=1', '77')).code, 50);
  t.equal(
    (await run(h, 'DATA QUERY tablename=transaction,fielddesc=*,filter=NewRecord', '78')).code,
    150,
    'a pin filter did not mark rows',
  );
  t.same(
    h.answers.slice(-2).map((u) => (u.kind === 'querydata' ? [u.cmdid, u.count, u.packcnt, u.packidx] : [])),
    [
      ['78', 100, 2, 1],
      ['78', 50, 2, 2],
    ],
  );
  const down = harness({ protocol: 'v3', delivered: false });
  down.memory.addAttendance('1', '2026-01-01 08:00:00', 0, 1);
  t.equal(await code(down, 'DATA QUERY tablename=transaction,fielddesc=*,filter=*'), -726, 'packet not delivered');
});

t.test('DATA COUNT [PUSH-v3 §10.3]', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  await run(h, `DATA UPDATE biodata pin=2\ttype=9\ttmp=${TMP}`);
  t.match(await run(h, 'DATA COUNT user', '288'), { code: 0, cmd: 'DATA COUNT' });
  t.same(h.answers.pop(), {
    kind: 'querydata',
    type: 'count',
    cmdid: '288',
    tablename: 'user',
    count: 1,
    packcnt: 1,
    packidx: 1,
    body: 'user=3',
  });
  t.equal(await code(h, 'DATA COUNT biodata Type=9'), 0);
  t.equal(body(h.answers.pop()), 'biodata=1');
  t.equal(await code(h, 'DATA COUNT biodata Type=1'), 0);
  t.equal(body(h.answers.pop()), 'biodata=0');
  t.equal(await code(h, 'DATA COUNT'), -102);
  t.equal(await code(h, 'DATA COUNT nosuch'), -100);
  t.equal(await code(h, 'DATA COUNT user Name=x'), -101);
  t.equal(await code(harness({ protocol: 'v3', delivered: false }), 'DATA COUNT user'), -726);
});

t.test('SET OPTIONS / GET OPTIONS [PUSH-v3 §11.6, §10.5]', T, async (t) => {
  const h = harness({ protocol: 'v3', sn: 'SNV3' });
  t.match(await run(h, 'SET OPTIONS IPAddress=192.168.213.222,GATEIPAddress=192.168.213.1,NetMask=255.255.255.0'), {
    code: 0,
    cmd: 'SET OPTIONS',
  });
  t.equal(await code(h, 'SET OPTIONS DateTime=583080894'), 0);
  t.same(
    [...h.memory.options],
    [
      ['IPAddress', '192.168.213.222'],
      ['GATEIPAddress', '192.168.213.1'],
      ['NetMask', '255.255.255.0'],
      ['DateTime', '583080894'],
    ],
  );
  t.equal(await code(h, 'SET OPTIONS DateTime=2026-02-23 16:30:00'), -108);
  t.equal(await code(h, 'SET OPTIONS broken'), -108);
  t.equal(await code(h, 'SET OPTIONS '), -108);
  t.match(await run(h, 'GET OPTIONS ~SerialNumber,FirmVer,LockCount,IPAddress,Nope', '9'), { code: 0, cmd: 'GET OPTIONS' });
  t.same(h.answers.pop(), {
    kind: 'querydata',
    type: 'options',
    cmdid: '9',
    tablename: 'options',
    count: 1,
    packcnt: 1,
    packidx: 1,
    body: '~SerialNumber=SNV3,FirmVer=BGSIM Ver3.3.12,LockCount=1,IPAddress=192.168.213.222,Nope=',
  });
  t.equal(await code(h, 'GET OPTIONS  , '), -108);
  t.equal(await code(harness({ protocol: 'v3', delivered: false }), 'GET OPTIONS FirmVer'), -726);
});

t.test('CONTROL DEVICE [PUSH-v3 §11.5]', T, async (t) => {
  const h = harness({ protocol: 'v3', lockCount: 2 });
  const door = (n: number) => h.memory.doors()[n - 1];
  t.match(await run(h, 'CONTROL DEVICE 01010105'), { code: 0, cmd: 'CONTROL DEVICE' });
  t.match(door(1), { relay: 'open', lastOpenSeconds: 5 });
  t.equal(await code(h, 'CONTROL DEVICE 010201ff'), 0, 'lower-case hex, normal open');
  t.equal(door(2)?.relay, 'normal-open');
  t.equal(await code(h, 'CONTROL DEVICE 0102011E'), -28, 'timed open refused while latched open');
  t.equal(await code(h, 'CONTROL DEVICE 01020100'), 0, 'close ends normal-open');
  t.equal(door(2)?.relay, 'closed');
  t.equal(await code(h, 'CONTROL DEVICE 01000105'), 0, 'all doors');
  t.same(
    h.memory.doors().map((d) => d.relay),
    ['open', 'open'],
  );
  t.equal(await code(h, 'CONTROL DEVICE 01010205'), 0, 'auxiliary output');
  t.equal(await code(h, 'CONTROL DEVICE 01030105'), -11, 'door 3 of 2');
  h.memory.updateDoor(1, { alarm: true });
  t.equal(await code(h, 'CONTROL DEVICE 02010000'), 0);
  t.equal(door(1)?.alarm, false);
  t.match(await run(h, 'CONTROL DEVICE 03000000'), { code: 0, effect: 'restart' });
  t.equal(await code(h, 'CONTROL DEVICE 04010000'), 0);
  t.equal(door(1)?.normalOpenZoneEnabled, false);
  t.equal(await code(h, 'CONTROL DEVICE 06010100'), 0);
  t.equal(door(1)?.lockedDown, true);
  t.equal(await code(h, 'CONTROL DEVICE 06010000'), 0);
  t.equal(door(1)?.lockedDown, false);
  t.equal(await code(h, 'CONTROL DEVICE 07010000'), 0);
  t.equal(h.memory.emergency, 'dual-open');
  t.equal(await code(h, 'CONTROL DEVICE 07020000'), 0);
  t.equal(h.memory.emergency, 'dual-close');
  t.equal(await code(h, 'CONTROL DEVICE 07030000'), -11);
  t.equal(await code(h, 'CONTROL DEVICE 0900000000'), 0, 'Wiegand test, 5 bytes');
  t.equal(await code(h, 'CONTROL DEVICE 0D000000'), 0);
  t.equal(await code(h, 'CONTROL DEVICE 05010000'), -13, 'edition-dependent operation');
  t.equal(await code(h, 'CONTROL DEVICE 20000000'), -13);
  t.equal(await code(h, 'CONTROL DEVICE 00000000'), -13, 'all-zero operand (I6)');
  t.equal(await code(h, 'CONTROL DEVICE 1 1 1 15'), -11, 'not concatenated hex bytes');
  t.equal(await code(h, 'CONTROL DEVICE 0101010'), -11);
});

t.test('ENROLL_BIO [PUSH-v3 §11.8]', T, async (t) => {
  const h = await withUsers({ faceSupport: true });
  t.match(await run(h, 'ENROLL_BIO type=9\tno=0\tpin=1\tretry=3\toverwrite=1'), {
    code: 0,
    cmd: 'ENROLL_BIO',
    enroll: { pin: '1', type: 9, no: 0 },
  });
  t.match(await run(h, 'ENROLL_BIO type=1\tno=5\tpin=2\tcardno=123\tretry=3\toverwrite=1'), { code: 0, enroll: { type: 1, no: 5 } });
  await run(h, `DATA UPDATE templatev10 Pin=2\tFingerID=5\tTemplate=${TMP}`);
  await run(h, `DATA UPDATE biodata pin=2\ttype=9\ttmp=${TMP}`);
  t.equal(await code(h, 'ENROLL_BIO type=1\tno=5\tpin=2\tretry=3\toverwrite=0'), 2);
  t.equal(await code(h, 'ENROLL_BIO type=9\tno=0\tpin=2\tretry=3\toverwrite=0'), 5);
  t.equal(await code(h, 'ENROLL_BIO type=9\tno=0\tpin=8\tretry=3\toverwrite=1'), -27);
  t.equal(await code(h, 'ENROLL_BIO type=8\tno=0\tpin=1\tretry=3\toverwrite=1'), -11, 'no palm sensor');
  t.equal(await code(h, 'ENROLL_BIO no=0\tpin=1'), -102);
  t.equal(await code(h, 'ENROLL_BIO type=1\tno=10\tpin=1'), -102);
  t.equal(await code(h, 'ENROLL_BIO type=1 no=1 pin=1'), -102);
});

t.test('UPGRADE and v2 words on a v3 device', T, async (t) => {
  const firmware = Buffer.from('raw');
  const md5 = createHash('md5').update(firmware).digest('hex');
  const h = harness({ protocol: 'v3', firmware });
  t.match(await run(h, `UPGRADE type=1,checksum=${md5},size=3,url=fw`), { code: 0, effect: 'restart' });
  t.equal(await code(h, 'UPGRADE checksum=x'), -11);
  t.equal(await code(harness({ protocol: 'v3' }), `UPGRADE checksum=${md5},size=3,url=fw`), -720);
  t.equal(await code(h, 'INFO'), -13, 'no v3 form [PUSH-v3 §11.9]');
  t.equal(await code(h, 'AC_UNLOCK'), -13);
  t.equal(await code(h, 'Foo'), -13);
  const acc = harness({ protocol: 'v3', acceptV2Words: true });
  t.match(await run(acc, 'INFO'), { code: 0, cmd: 'INFO', lines: ['~DeviceName=BioGate Sim Access', /^MAC=/] });
  t.match(await run(acc, 'AC_UNLOCK'), { code: 0, cmd: 'AC_UNLOCK' });
  t.match(await run(acc, 'Shell date'), { code: 0, cmd: 'Shell' });
  t.equal(await code(acc, 'REBOOT'), -13, 'only the words seen on acc terminals');
});
