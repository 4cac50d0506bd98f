import t from 'tap';
import { mergeUploads, uploadRequest, uploadVerdict } from '../../src/simulator/uploads.js';
import type { Upload } from '../../src/simulator/uploads.js';

const T = { timeout: 10_000 };

const attlog: Upload = { kind: 'table', table: 'ATTLOG', lines: ['1\t2026-01-01 08:00:00\t0\t1\t0\t0\t0'] };
const rtlog: Upload = { kind: 'rtlog', lines: ['time=…'] };
const user: Upload = { kind: 'tabledata', tablename: 'user', lines: ['user uid=1', 'user uid=2'] };
const query: Upload = {
  kind: 'querydata',
  type: 'tabledata',
  cmdid: '415',
  tablename: 'user',
  count: 3,
  packcnt: 1,
  packidx: 1,
  body: 'a\nb\nc',
};

t.test('requests [PUSH-v2 §6.1, PUSH-v3 §7, §10]', T, async (t) => {
  t.same(uploadRequest('S', attlog), {
    method: 'POST',
    path: '/iclock/cdata',
    query: [
      ['SN', 'S'],
      ['table', 'ATTLOG'],
      ['Stamp', '9999'],
    ],
    body: '1\t2026-01-01 08:00:00\t0\t1\t0\t0\t0\n',
  });
  t.same(uploadRequest('S', rtlog), {
    method: 'POST',
    path: '/iclock/cdata',
    query: [
      ['SN', 'S'],
      ['table', 'rtlog'],
    ],
    body: 'time=…',
  });
  t.same(uploadRequest('S', user), {
    method: 'POST',
    path: '/iclock/cdata',
    query: [
      ['SN', 'S'],
      ['table', 'tabledata'],
      ['tablename', 'user'],
      ['count', '2'],
    ],
    body: 'user uid=1\nuser uid=2',
  });
  t.same(uploadRequest('S', { kind: 'options', protocol: 'v2', body: 'A=1,B=2' }).query, [
    ['SN', 'S'],
    ['table', 'options'],
    ['Stamp', '9999'],
  ]);
  t.same(uploadRequest('S', { kind: 'options', protocol: 'v3', body: 'A=1' }).query, [
    ['SN', 'S'],
    ['table', 'options'],
  ]);
  t.same(uploadRequest('S', query), {
    method: 'POST',
    path: '/iclock/querydata',
    query: [
      ['SN', 'S'],
      ['type', 'tabledata'],
      ['cmdid', '415'],
      ['tablename', 'user'],
      ['count', '3'],
      ['packcnt', '1'],
      ['packidx', '1'],
    ],
    body: 'a\nb\nc',
  });
});

t.test('verdicts', T, async (t) => {
  for (const body of ['OK', 'OK:3', 'OK: 3', 'OK\n']) t.equal(uploadVerdict(attlog, 200, body), 'ok', body);
  t.equal(uploadVerdict(attlog, 200, 'ERROR'), 'bad-reply');
  t.equal(uploadVerdict(attlog, 500, 'OK'), 'http-error');
  t.equal(uploadVerdict(rtlog, 200, 'OK'), 'ok');
  t.equal(uploadVerdict({ kind: 'options', protocol: 'v3', body: '' }, 200, 'OK'), 'ok');
  t.equal(uploadVerdict(user, 200, 'user=2'), 'ok');
  // [PUSH-v3 §7.1] a plain OK to tabledata makes a real device re-send forever
  t.equal(uploadVerdict(user, 200, 'OK'), 'bad-reply');
  t.equal(uploadVerdict(query, 200, 'user=3'), 'ok');
  t.equal(uploadVerdict({ ...query, tablename: 'a.b' }, 200, 'aXb=3'), 'bad-reply', 'table name matched literally');
});

t.test('merging neighbours of the same table', T, async (t) => {
  t.same(mergeUploads(attlog, attlog, 10), { kind: 'table', table: 'ATTLOG', lines: [...attlog.lines, ...attlog.lines] });
  t.equal(mergeUploads(attlog, attlog, 1), undefined, 'line limit');
  t.equal(mergeUploads(attlog, { kind: 'table', table: 'OPERLOG', lines: ['x'] }, 10), undefined);
  t.same(mergeUploads(rtlog, rtlog, 10), { kind: 'rtlog', lines: ['time=…', 'time=…'] });
  t.equal(mergeUploads(rtlog, rtlog, 1), undefined);
  t.same(mergeUploads(user, user, 10), { kind: 'tabledata', tablename: 'user', lines: [...user.lines, ...user.lines] });
  t.equal(mergeUploads(user, { kind: 'tabledata', tablename: 'biodata', lines: ['x'] }, 10), undefined);
  t.equal(mergeUploads(user, user, 3), undefined);
  t.equal(mergeUploads(attlog, rtlog, 10), undefined);
  t.equal(mergeUploads(query, query, 10), undefined);
});
