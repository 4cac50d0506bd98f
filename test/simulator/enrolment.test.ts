import t from 'tap';
import { admitEnrolment, enrolledTemplate, enrolmentUploads } from '../../src/simulator/enrolment.js';
import { createDeviceMemory } from '../../src/simulator/memory.js';
import { createProfile } from '../../src/simulator/profile.js';
import { createRng } from '../../src/simulator/rng.js';
import type { SimUser } from '../../src/simulator/types.js';

const T = { timeout: 10_000 };
const CODES = { noUser: -10, noSensor: -1004, full: -1001 };
const NOW = '2026-03-24 16:12:26';

t.test('admission [PUSH-v2 §8.6]', T, async (t) => {
  const p = createProfile({ sn: 'E1', protocol: 'v2', faceSupport: true });
  const m = createDeviceMemory(1, { maxUsers: 5, maxTemplates: 1, maxAttendance: 1 });
  t.equal(admitEnrolment(p, m, '1', 1, 0, 1, CODES), -10);
  m.putUser({ pin: '1' });
  t.equal(admitEnrolment(p, m, '1', 7, 0, 1, CODES), -1004);
  t.equal(admitEnrolment(p, m, '1', 1, 0, 0, CODES), 0);
  m.putTemplate(enrolledTemplate(p, createRng(1), '1', 1, 0));
  t.equal(admitEnrolment(p, m, '1', 1, 0, 0, CODES), 2);
  t.equal(admitEnrolment(p, m, '1', 1, 0, 1, CODES), 0, 'overwrite');
  t.equal(admitEnrolment(p, m, '1', 1, 1, 1, CODES), -1001, 'full');
  m.deleteTemplates(() => true);
  m.putTemplate(enrolledTemplate(p, createRng(1), '1', 9, 0));
  t.equal(admitEnrolment(p, m, '1', 9, 0, 0, CODES), 5);
});

t.test('templates: seeded, versioned, stored where the device keeps them', T, async (t) => {
  const v2 = createProfile({ sn: 'E2', protocol: 'v2', faceSupport: true });
  const a = enrolledTemplate(v2, createRng(5), '1', 1, 3);
  t.same(a, enrolledTemplate(v2, createRng(5), '1', 1, 3), 'same seed, same template');
  t.match(a, { table: 'FINGERTMP', pin: '1', type: 1, no: 3, index: 0, valid: 1, duress: 0, majorVer: 10, minorVer: 0, format: 0 });
  t.equal(a.tmp.length, 512);
  const face = enrolledTemplate(v2, createRng(5), '1', 9, 0);
  t.match(face, { table: 'BIODATA', type: 9, majorVer: 40, minorVer: 1 });
  t.equal(face.tmp.length, 1600);
  t.match(
    enrolledTemplate(createProfile({ sn: 'E3', protocol: 'v2' }), createRng(5), '1', 9, 0),
    { majorVer: 0, minorVer: 0 },
    'no sensor: version 0',
  );
});

t.test('uploads announcing an enrolment (fixture A10, PUSH-v3 §7.4)', T, async (t) => {
  const owner: SimUser = {
    pin: '1',
    name: 'Ann',
    privilege: 0,
    password: '',
    card: '',
    group: 1,
    tz: '',
    verify: 0,
    viceCard: '',
    startTime: '0',
    endTime: '0',
    disabled: false,
    uid: 4,
  };
  const v2 = createProfile({ sn: 'E4', protocol: 'v2', faceSupport: true });
  const fp = enrolledTemplate(v2, createRng(1), '1', 1, 2);
  t.same(enrolmentUploads(v2, fp, owner, true, NOW), [
    {
      kind: 'table',
      table: 'OPERLOG',
      lines: [
        `OPLOG 30\t0\t${NOW}\t1\t0\t0\t0`,
        'USER PIN=1\tName=Ann\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=\tVerify=0\tViceCard=',
        `OPLOG 6\t0\t${NOW}\t1\t0\t2\t512`,
        `FP PIN=1\tFID=2\tSize=512\tValid=1\tTMP=${fp.tmp}`,
      ],
    },
  ]);
  t.same(
    enrolmentUploads(v2, fp, owner, false, NOW).map((u) => (u.kind === 'table' ? u.lines.length : 0)),
    [2],
  );
  const face = enrolledTemplate(v2, createRng(1), '1', 9, 0);
  const bio = `BIODATA Pin=1\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=40\tMinorVer=1\tFormat=0\tTmp=${face.tmp}`;
  t.same(enrolmentUploads(v2, face, owner, false, NOW), [{ kind: 'table', table: 'BIODATA', lines: [bio] }]);
  t.same(
    enrolmentUploads(v2, face, owner, true, NOW).map((u) => (u.kind === 'table' ? u.table : '')),
    ['OPERLOG', 'BIODATA'],
  );

  const v3 = createProfile({ sn: 'E5', protocol: 'v3', faceSupport: true });
  const fp3 = enrolledTemplate(v3, createRng(1), '1', 1, 6);
  t.same(enrolmentUploads(v3, fp3, owner, true, NOW), [
    {
      kind: 'tabledata',
      tablename: 'user',
      lines: ['user uid=4\tcardno=\tpin=1\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=Ann\tprivilege=0\tdisable=0\tverify=0'],
    },
    {
      kind: 'tabledata',
      tablename: 'templatev10',
      lines: [`templatev10 size=512\tuid=4\tpin=1\tfingerid=6\tvalid=1\ttemplate=${fp3.tmp}\tresverd=\tendtag=`],
    },
  ]);
  const face3 = enrolledTemplate(v3, createRng(1), '1', 9, 0);
  t.same(enrolmentUploads(v3, face3, owner, false, NOW), [
    {
      kind: 'tabledata',
      tablename: 'biodata',
      lines: [`biodata pin=1\tno=0\tindex=0\tvalid=1\tduress=0\ttype=9\tmajorver=40\tminorver=1\tformat=0\ttmp=${face3.tmp}`],
    },
  ]);
});
