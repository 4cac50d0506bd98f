// Issue #18 end to end: the real app (test/helpers/app.ts), raw device requests through /iclock, the
// API to look at what was kept. Each case failed on the code before the issue was worked.
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { tgzOf } from '../../src/simulator/wire-bytes.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';

async function setup(tt: Parameters<typeof startApp>[0]) {
  const app = await startApp(tt);
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const device = async (method: 'GET' | 'POST', path: string, body?: string | Uint8Array) => {
    const res = await fetch(`${app.url}/iclock/${path}`, { method, ...(body === undefined ? {} : { body }) });
    return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  const text = async (method: 'GET' | 'POST', path: string, body?: string | Uint8Array) => {
    const r = await device(method, path, body);
    return { status: r.status, body: new TextDecoder().decode(r.bytes) };
  };
  return { app, api, device, text };
}

interface Page<T> {
  data: T[];
  total: number;
}
interface RecordView {
  table: string;
  source: string;
  cmd_id: string | null;
  record: string;
}

t.test('tables kept unparsed: counted per record, stored raw, readable per table; a count mismatch is -731', async (t) => {
  const { api, text } = await setup(t);
  t.equal((await api('POST', '/api/devices', { sn: 'RAW30001' })).res.status, 201);
  const auth =
    'userauthorize pin=1\tauthorizetimezoneid=1\tauthorizedoorid=1\nuserauthorize pin=2\tauthorizetimezoneid=1\tauthorizedoorid=3\n';
  t.same(await text('POST', 'querydata?SN=RAW30001&type=tabledata&cmdid=77&tablename=userauthorize&count=2&packcnt=1&packidx=1', auth), {
    status: 200,
    body: 'userauthorize=2',
  });
  t.same(await text('POST', 'cdata?SN=RAW30001&table=tabledata&tablename=holiday&count=3', 'holiday id=1\nholiday id=2'), {
    status: 200,
    body: 'holiday=-731',
  });
  t.same(await text('POST', 'cdata?SN=RAW30001&table=IDCARD', 'PIN=1\tSNNum=a\nPIN=2\tSNNum=b\nPIN=3\tSNNum=c\n'), {
    status: 200,
    body: 'OK: 3',
  });
  // [PUSH-v3 §10.2] corrected: a DATA COUNT packet is answered OK
  t.same(await text('POST', 'querydata?SN=RAW30001&type=count&cmdid=78&tablename=user&count=1&packcnt=1&packidx=1', 'user=5'), {
    status: 200,
    body: 'OK',
  });

  const all = (await api('GET', '/api/devices/RAW30001/records')).body as Page<RecordView>;
  t.equal(all.total, 5, 'nothing of the -731 packet was kept');
  const rights = (await api('GET', '/api/devices/RAW30001/records?table=UserAuthorize&limit=1&page=2')).body as Page<RecordView>;
  t.equal(rights.total, 2);
  t.match(rights.data, [
    { table: 'userauthorize', source: 'query', cmd_id: '77', record: 'userauthorize pin=1\tauthorizetimezoneid=1\tauthorizedoorid=1' },
  ]);
  t.equal(((await api('GET', '/api/devices/RAW30001/records?table=IDCARD')).body as Page<RecordView>).data[2]?.record, 'PIN=1\tSNNum=a');
  t.equal((await api('GET', '/api/devices/NOPE0001/records')).res.status, 404, "another location's (or no) device");
  t.equal((await api('GET', '/api/devices/RAW30001/records?table=a%20b')).res.status, 422);
});

t.test('packed OPERLOG (ContentType=tgz): every record processed as if sent plain; bombs and garbage refused', async (t) => {
  const { api, text } = await setup(t);
  await api('POST', '/api/devices', { sn: 'TGZ20001' });
  await text('GET', 'cdata?SN=TGZ20001&options=all&pushver=2.4.1');
  const records = 'OPLOG 4\t0\t2026-02-03 09:01:00\t0\t0\t0\t0\nOPLOG 30\t0\t2026-02-03 09:02:10\t1005\t0\t0\t0\n';
  t.same(
    await text(
      'POST',
      'cdata?SN=TGZ20001&table=OPERLOG&Stamp=9999&ContentType=tgz',
      tgzOf({ 'a.txt': records, 'b.txt': 'OPLOG 4\t0\t2026-02-03 09:03:00\t0\t0\t0\t0' }),
    ),
    { status: 200, body: 'OK: 3' },
  );
  const bomb = await text('POST', 'cdata?SN=TGZ20001&table=OPERLOG&ContentType=tgz', gzipSync(Buffer.alloc(64 * 1024 * 1024)));
  t.equal(bomb.status, 413);
  t.equal((await text('POST', 'cdata?SN=TGZ20001&table=OPERLOG&ContentType=tgz', 'not a tgz')).status, 400);
  t.same(await text('POST', 'cdata?SN=TGZ20001&table=OPERLOG', records), { status: 200, body: 'OK: 2' }, 'the plain form is unchanged');
});

t.test('command results posted to /iclock/cdata without a table are correlated as on devicecmd', async (t) => {
  const { api, text } = await setup(t);
  await api('POST', '/api/devices', { sn: 'RES20001' });
  await text('GET', 'cdata?SN=RES20001&options=all&pushver=2.4.0');
  const cmd = (await api('POST', '/api/devices/RES20001/command', { command: 'clear-log' })).body as { id: number };
  t.equal((await text('GET', 'getrequest?SN=RES20001')).body, `C:${cmd.id}:CLEAR LOG`);
  t.same(await text('POST', 'cdata?SN=RES20001', `ID=${cmd.id}&Return=0&CMD=CLEAR LOG\n`), { status: 200, body: 'OK' });
  const done = (await api('GET', `/api/commands/${cmd.id}`)).body as { status: string; response: string };
  t.equal(done.status, 'success', 'was "no result from device" after the ack timeout');
  t.equal(done.response, `ID=${cmd.id}&Return=0&CMD=CLEAR LOG`);
});

t.test('visible-light palm (type 10) and a future type: stored and synced like other types', async (t) => {
  const { api, text } = await setup(t);
  await api('POST', '/api/users', { pin: 51, first_name: 'Pat' });
  await api('POST', '/api/devices', { sn: 'PALM2001' });
  await api('POST', '/api/devices', { sn: 'PALM2002' });
  for (const sn of ['PALM2001', 'PALM2002']) {
    await text('GET', `cdata?SN=${sn}&options=all&pushver=2.4.1`);
    await text('POST', `cdata?SN=${sn}&table=options`, 'MultiBioDataSupport=0:1:0:0:0:0:0:0:0:0:1,PalmVersion=1');
    while ((await text('GET', `getrequest?SN=${sn}`)).body !== 'OK') {
      /* drain the assignment's commands */
    }
  }
  const upload =
    'BIODATA Pin=51\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=10\tMajorVer=1\tMinorVer=0\tFormat=0\tTmp=AAAABBBB\n' +
    'BIODATA Pin=51\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=12\tMajorVer=2\tMinorVer=0\tFormat=0\tTmp=CCCCDDDD';
  t.same(await text('POST', 'cdata?SN=PALM2001&table=BIODATA&Stamp=9999', upload), { status: 200, body: 'OK: 2' });
  const user = (await api('GET', '/api/users/51?include=biometrics')).body as { biometric_templates: { type_index: number }[] };
  t.same(
    user.biometric_templates.map((b) => b.type_index).sort((x, y) => x - y),
    [10, 12],
  );
  const wire = (await text('GET', 'getrequest?SN=PALM2002')).body;
  t.match(
    wire,
    /DATA UPDATE BIODATA Pin=51\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=10\tMajorVer=1\tMinorVer=0\tFormat=0\tTmp=AAAABBBB/,
    'the palm template goes to the other palm terminal',
  );
});

t.test(
  'language: a Chinese name round-trips through a language-83 v2 terminal in GB2312, a Cyrillic one through a language-82 terminal in UTF-8',
  async (t) => {
    const { api, device, text } = await setup(t);
    const gbk = new TextDecoder('gbk');
    for (const [sn, language, pin, first, decode] of [
      ['LANG8301', '83', 61, '张伟', (b: Uint8Array) => gbk.decode(b)],
      ['LANG8201', '82', 62, 'Иван', (b: Uint8Array) => new TextDecoder().decode(b)],
    ] as const) {
      await api('POST', '/api/users', { pin, first_name: first });
      await api('POST', '/api/devices', { sn });
      await text('GET', `cdata?SN=${sn}&options=all&pushver=2.4.1&language=${language}`);
      // out: the user sync carries the name in the terminal's character set
      let lines = '';
      for (let i = 0; i < 5 && !lines.includes('USERINFO'); i++) lines = decode((await device('GET', `getrequest?SN=${sn}`)).bytes);
      t.match(
        lines,
        new RegExp(`DATA UPDATE USERINFO PIN=${pin}\\tName=${first}\\t`),
        `${language}: name sent in the device's character set`,
      );
      // back: a load-users answer with the name in the same character set
      const cmd = (await api('POST', `/api/devices/${sn}/command`, { command: 'load-users', params: { pin } })).body as { id: number };
      t.match(decode((await device('GET', `getrequest?SN=${sn}`)).bytes), `C:${cmd.id}:DATA QUERY USERINFO PIN=${pin}`);
      const name = language === '83' ? Uint8Array.from([0xd5, 0xc5, 0xce, 0xb0]) : new TextEncoder().encode(first);
      const body = Buffer.concat([
        Buffer.from(`PIN=${pin}\tName=`),
        name,
        Buffer.from('\tPri=0\tPasswd=\tCard=\tGrp=1\tTZ=0000000100000000'),
      ]);
      t.same(await text('POST', `cdata?SN=${sn}&table=USERINFO`, body), { status: 200, body: 'OK: 1' });
      await text('POST', `devicecmd?SN=${sn}`, `ID=${cmd.id}&Return=1&CMD=DATA`);
      const done = (await api('GET', `/api/commands/${cmd.id}`)).body as { status: string; result: { users: { name: string }[] } };
      t.equal(done.status, 'success');
      t.equal(done.result.users[0]?.name, first, `${language}: name read back in the device's character set`);
    }
  },
);

t.test(
  'simulator: a language-83 palm terminal sending packed OPERLOG gets GBK names, stores type 10 and its packed fingerprints',
  async (t) => {
    const { app, api } = await setup(t);
    await api('POST', '/api/users', { pin: 72, first_name: '张伟' });
    await api('POST', '/api/devices', { sn: 'SIMCN001' });
    const sim = createSimulatedDevice({
      url: app.url,
      sn: 'SIMCN001',
      protocol: 'v2',
      pollDelayMs: 100,
      fast: true,
      requestTimeoutMs: 30_000,
      language: '83',
      palmSupport: true,
      packedOperlog: true,
    });
    t.teardown(() => sim.stop());
    sim.start();
    await waitFor(() => sim.users().has('72'), 15_000, 'user 72 on the terminal');
    t.equal(sim.users().get('72')?.name, '张伟', 'the name arrived in GB2312 and was read as such');
    t.equal(await sim.enroll('72', 0, 10), true, 'palm template uploaded and acknowledged');
    t.equal(await sim.enroll('72', 3, 1), true, 'fingerprint announced in a packed OPERLOG, acknowledged');
    const user = (await api('GET', '/api/users/72?include=biometrics')).body as {
      biometric_templates: { type_index: number; finger_id?: number }[];
    };
    t.same(
      user.biometric_templates.map((b) => b.type_index).sort((x, y) => x - y),
      [1, 10],
      'the FP line inside the tgz was processed as if sent plain',
    );
    t.equal(sim.stats.uploadsFailed, 0);
  },
);
