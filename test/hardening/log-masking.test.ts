// Issue #32 item 18: template bytes (`TMP=` / `Tmp=` values) never reach a log through samples of
// rejected device lines, and an `Authorization` header (or the token in it, or a stream's
// `access_token`) never appears in any log line, at any level (the debug request log included).
// Real app at debug level, logs captured.
import t from 'tap';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, logCapture, startApp } from '../helpers/app.js';

const TEMPLATE = 'TWpTUzIxAAAEEBAECAUHCc7QAAAsEXYAAAAAhK8h2A3cL4LXY0xvbmdUZW1wbGF0ZUJ5dGVz';

t.test('template bytes of rejected lines and bearer tokens never reach a log line, at debug level', async (t) => {
  const logs = logCapture();
  const s = await startApp(t, { logs, config: { logLevel: 'debug', adminToken: ADMIN_TOKEN } });
  t.equal((await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'MASK0001' }, bearer(s.token)))).res.status, 201);
  // Lines the codec refuses (no PIN, a bad field) that carry template bytes, in both spellings.
  const lines = [
    `FP PIN=\tFID=1\tSize=40\tValid=1\tTMP=${TEMPLATE}`,
    `BIODATA Pin=x\tNo=0\tIndex=0\tValid=1\tDuress=0\tType=9\tMajorVer=5\tMinorVer=8\tFormat=0\tTmp=${TEMPLATE}`,
    `garbage TMP=${TEMPLATE}`,
  ].join('\n');
  for (const table of ['OPERLOG', 'BIODATA', 'ATTLOG'])
    await fetch(`${s.url}/iclock/cdata?SN=MASK0001&table=${table}`, { method: 'POST', body: lines }).then((r) => r.text());
  await fetch(`${s.url}/api/me`, { headers: bearer(s.token) }).then((r) => r.text());
  await fetch(`${s.url}/api/me?access_token=${s.token}`, { headers: bearer(s.token) }).then((r) => r.text());
  await fetch(`${s.url}/admin/locations`, { headers: bearer(ADMIN_TOKEN) }).then((r) => r.text());
  await fetch(`${s.url}/metrics`, { headers: bearer(ADMIN_TOKEN) }).then((r) => r.text());
  await fetch(`${s.url}/iclock/getrequest?SN=MASK0001`, { headers: { authorization: `Bearer ${s.token}` } }).then((r) => r.text());
  await fetch(`${s.url}/api/stream?access_token=${s.token}`).then((r) => r.text());
  await s.close();

  const text = logs.text();
  t.ok(
    logs.entries().some((e) => e['msg'] === 'device lines rejected'),
    'the rejected lines were logged (with samples)',
  );
  t.ok(
    logs.entries().some((e) => e['msg'] === 'request'),
    'the debug request log ran',
  );
  t.notOk(text.includes(TEMPLATE.slice(0, 24)), 'no template bytes in any line');
  t.notOk(text.includes(s.token), 'the location token in no line');
  t.notOk(text.includes(ADMIN_TOKEN), 'the admin token in no line');
  t.notOk(/Bearer [A-Za-z0-9]/.test(text), 'no Authorization value in any line');
});
