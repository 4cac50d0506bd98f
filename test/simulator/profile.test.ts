import t from 'tap';
import { createDeviceMemory } from '../../src/simulator/memory.js';
import {
  algorithmVersion,
  createProfile,
  deviceParameters,
  infoHeartbeat,
  infoLines,
  optionsBody,
  optionValues,
  registryBody,
  storageTable,
} from '../../src/simulator/profile.js';

const T = { timeout: 10_000 };

t.test('identity derived from the serial number', T, async (t) => {
  const v2 = createProfile({ sn: 'SIM0001', protocol: 'v2' });
  t.match(v2, { fpVersion: 10, faceSupport: false, lockCount: 1, pushver: '2.4.1', firmware: 'Ver 8.0.4.3-BGSIM', commKey: undefined });
  t.match(v2.mac, /^00:17:61:[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}$/);
  t.match(v2.ip, /^10\.\d+\.\d+\.\d+$/);
  t.same(createProfile({ sn: 'SIM0001', protocol: 'v2' }), v2, 'stable');
  const v3 = createProfile({ sn: 'SIM0002', protocol: 'v3', fpVersion: 12, faceSupport: true, lockCount: 4, commKey: 'k' });
  t.match(v3, { pushver: '3.1.2', fpVersion: 12, faceSupport: true, lockCount: 4, commKey: 'k', deviceName: 'BioGate Sim Access' });
});

t.test('algorithms and storage tables [COMMANDS §5.3–§5.4]', T, async (t) => {
  const plain = createProfile({ sn: 'A', protocol: 'v2' });
  const face = createProfile({ sn: 'B', protocol: 'v3', faceSupport: true, fpVersion: 12 });
  t.same(algorithmVersion(plain, 1), [10, 0]);
  t.equal(algorithmVersion(plain, 9), undefined);
  t.equal(algorithmVersion(plain, 2), undefined);
  t.same(algorithmVersion(face, 1), [12, 0]);
  t.same(algorithmVersion(face, 2), [7, 0]);
  t.same(algorithmVersion(face, 9), [40, 1]);
  t.equal(algorithmVersion(face, 8), undefined);
  t.equal(storageTable(plain, 1), 'FINGERTMP');
  t.equal(storageTable(createProfile({ sn: 'C', protocol: 'v2', fpVersion: 12 }), 1), 'BIODATA');
  t.equal(storageTable(createProfile({ sn: 'C', protocol: 'v2', faceSupport: true }), 9), 'BIODATA');
  t.equal(storageTable(createProfile({ sn: 'D', protocol: 'v3' }), 1), 'templatev10');
  t.equal(storageTable(face, 1), 'biodata');
});

t.test('parameter lists', T, async (t) => {
  const p = createProfile({ sn: 'SIM9', protocol: 'v2', faceSupport: true });
  const m = createDeviceMemory(1);
  m.putUser({ pin: '1' });
  m.putTemplate({
    table: 'FINGERTMP',
    pin: '1',
    type: 1,
    no: 0,
    index: 0,
    valid: 1,
    duress: 0,
    majorVer: 10,
    minorVer: 0,
    format: 0,
    tmp: 'AAAA',
  });
  m.putTemplate({
    table: 'BIODATA',
    pin: '1',
    type: 9,
    no: 0,
    index: 0,
    valid: 1,
    duress: 0,
    majorVer: 40,
    minorVer: 1,
    format: 0,
    tmp: 'AAAA',
  });
  m.addAttendance('1', '2026-01-01 00:00:00', 0, 1);
  const params = deviceParameters(p, m);
  t.match(Object.fromEntries(params), {
    '~SerialNumber': 'SIM9',
    DeviceType: 'att',
    UserCount: '1',
    FPCount: '1',
    FaceCount: '1',
    TransactionCount: '1',
    MultiBioDataSupport: '0:0:1:0:0:0:0:0:0:1',
    MultiBioVersion: '0:10.0:7.0:0:0:0:0:0:0:40.1',
    FaceVersion: '40',
  });
  t.equal(deviceParameters(createProfile({ sn: 'X', protocol: 'v3', fpVersion: 12 }), m).get('MultiBioDataSupport'), '0:1:0:0:0:0:0:0:0:0');
  m.options.set('IPAddress', '192.168.1.225');
  t.equal(deviceParameters(p, m).get('IPAddress'), '192.168.1.225', 'SET OPTION overrides');
  const info = infoLines(p, m);
  t.equal(info[0], '~DeviceName=BioGate Sim Attendance');
  t.ok(info.includes('UserCount=1') && info.includes('FWVersion=Ver 8.0.4.3-BGSIM'));
  t.match(optionsBody(p, m, ['FingerFunOn', 'PvFunOn']), /^~DeviceName=BioGate Sim Attendance,MAC=.*,FingerFunOn=1,.*,PvFunOn=$/);
  t.equal(
    optionsBody(p, m, ['FingerFunOn'])
      .split(',')
      .filter((x) => x.startsWith('FingerFunOn=')).length,
    1,
    'no duplicate keys',
  );
  const v3 = createProfile({ sn: 'SIM8', protocol: 'v3', commKey: 'secret' });
  t.match(
    registryBody(v3, m),
    /^DeviceType=acc,~DeviceName=BioGate Sim Access,FirmVer=BGSIM Ver3\.3\.12,.*,CommType=ethernet,MaxPackageSize=2048000,authKey=secret$/,
  );
  t.notMatch(registryBody(createProfile({ sn: 'SIM8', protocol: 'v3' }), m), /authKey/);
  t.equal(optionValues(v3, m, ['~SerialNumber', 'LockCount', 'X']), '~SerialNumber=SIM8,LockCount=1,X=');
  // [PUSH-v2 §7.1] fw, users, fps, logs, ip, fp alg, face alg, faces to enroll, faces, flags
  t.equal(infoHeartbeat(p, m), `Ver 8.0.4.3-BGSIM,1,1,1,${p.ip},10,7,12,1,110`);
  t.equal(
    infoHeartbeat(createProfile({ sn: 'SIM9', protocol: 'v2' }), createDeviceMemory(1)),
    `Ver 8.0.4.3-BGSIM,0,0,0,${p.ip},10,0,0,0,100`,
  );
});
