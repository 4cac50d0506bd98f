// Property / fuzz tests: mutated fixture requests and random inputs never make the codec throw anything
// but a ProtocolError, and the replies of the decoded plans always render.
import t from 'tap';
import { PRESET_IDS } from '../../protocols/catalog.js';
import type { DecodeResult, SyncOp, WireRequest } from '../../protocols/codec.js';
import { ProtocolError } from '../../protocols/codec.js';
import { codecFor, countRecords } from '../../protocols/index.js';
import { fixtureFiles, readFixture, wireRequest } from './fixture-reader.js';
import { seeded, type Random } from './prng.js';

const MUTATIONS_PER_EXCHANGE = 150;
const codecs = [codecFor('2.0.0'), codecFor('3.0.0')] as const;

function mutateBody(rnd: Random, body: Uint8Array): Uint8Array {
  const bytes = [...body];
  switch (rnd.int(0, 7)) {
    case 0: // byte flips
      for (let i = rnd.int(1, 8); i > 0 && bytes.length > 0; i--) {
        const at = rnd.int(0, bytes.length - 1);
        bytes[at] = (bytes[at] as number) ^ (1 << rnd.int(0, 7));
      }
      return new Uint8Array(bytes);
    case 1: // truncation
      return new Uint8Array(bytes.slice(0, rnd.int(0, bytes.length)));
    case 2: {
      // line duplication
      const text = new TextDecoder().decode(body).split('\n');
      const at = rnd.int(0, Math.max(0, text.length - 1));
      text.splice(at, 0, text[at] ?? '');
      return new TextEncoder().encode(text.join('\n'));
    }
    case 3: // CR LF ↔ LF
      return new TextEncoder().encode(
        rnd.bool() ? new TextDecoder().decode(body).replace(/\r?\n/g, '\r\n') : new TextDecoder().decode(body).replace(/\r\n/g, '\n'),
      );
    case 4: // random bytes inserted
      bytes.splice(rnd.int(0, bytes.length), 0, ...Array.from({ length: rnd.int(1, 32) }, () => rnd.int(0, 255)));
      return new Uint8Array(bytes);
    case 5: // separators swapped
      return new TextEncoder().encode(new TextDecoder().decode(body).replace(/\t/g, () => rnd.pick(['\t', ' ', '  ', ',', '&', '='])));
    case 6: // entirely random body
      return new Uint8Array(Array.from({ length: rnd.int(0, 300) }, () => rnd.int(0, 255)));
    default: // structural characters sprayed in
      for (let i = rnd.int(1, 10); i > 0; i--) bytes.splice(rnd.int(0, bytes.length), 0, rnd.pick([0, 9, 10, 13, 32, 38, 44, 61, 126]));
      return new Uint8Array(bytes);
  }
}

function mutateQuery(rnd: Random, query: Readonly<Record<string, string>>): Record<string, string> {
  const q = { ...query };
  const keys = Object.keys(q);
  switch (rnd.int(0, 5)) {
    case 0:
      if (keys.length > 0) delete q[rnd.pick(keys)];
      break;
    case 1:
      if (keys.length > 0) q[rnd.pick(keys)] = rnd.text('abc=&,\t\n\r 0123456789-~', rnd.int(0, 12));
      break;
    case 2:
      q[rnd.pick(['table', 'tablename', 'type', 'cmdid', 'count', 'packidx', 'INFO', 'options', 'pushver', 'PIN', 'url', 'datafmt'])] =
        rnd.text('abcATTLOGuserOPERLOGrtlogtabledata0123456789=,.', rnd.int(0, 16));
      break;
    case 3:
      q.table = rnd.pick([
        'ATTLOG',
        'OPERLOG',
        'BIODATA',
        'USERINFO',
        'FINGERTMP',
        'ATTPHOTO',
        'options',
        'rtlog',
        'rtstate',
        'tabledata',
        'IDCARD',
        'RemoteAtt',
        'zzz',
      ]);
      q.tablename = rnd.pick(['user', 'templatev10', 'biodata', 'transaction', 'ATTPHOTO', 'errorlog', 'nope']);
      break;
    default:
      break;
  }
  return q;
}

/** Problems found for one request (empty when the codecs behave). */
function check(request: WireRequest, label: string): string[] {
  const problems: string[] = [];
  for (const codec of codecs) {
    let result: DecodeResult;
    try {
      result = codec.decode(request);
    } catch (error) {
      if (!(error instanceof ProtocolError)) problems.push(`${label}: threw ${String(error)}`);
      continue;
    }
    if (!Number.isInteger(result.rejected) || result.rejected < 0 || result.rejectedSamples.length > 5)
      problems.push(`${label}: bad rejected counts`);
    const plan = result.reply;
    if (plan.kind === 'ok' || plan.kind === 'okCount' || plan.kind === 'tableCount' || plan.kind === 'tableEcho') {
      const body = codec.replies.upload(plan, countRecords(result.events)).body;
      if (/[\r\n]/.test(body)) problems.push(`${label}: multi-line upload reply`);
    }
  }
  return problems;
}

t.test('mutated fixture requests never throw anything but ProtocolError', async (t) => {
  const rnd = seeded(0x5eed);
  const problems: string[] = [];
  let cases = 0;
  for (const version of ['v2', 'v3'] as const) {
    for (const file of fixtureFiles(version)) {
      readFixture(version, file).exchanges.forEach((exchange, i) => {
        const base = wireRequest(exchange.request);
        for (let m = 0; m < MUTATIONS_PER_EXCHANGE; m++) {
          const request: WireRequest = {
            ...base,
            body: mutateBody(rnd, base.body),
            query: rnd.next() < 0.3 ? mutateQuery(rnd, base.query) : base.query,
            method: rnd.next() < 0.1 ? rnd.pick(['GET', 'POST', 'PUT']) : base.method,
            path:
              rnd.next() < 0.05
                ? rnd.pick(['/iclock/iclock/cdata', '/iclock/querydata', '/iclock/devicecmd', '/iclock/registry', '/x'])
                : base.path,
          };
          problems.push(...check(request, `${file}#${i + 1}/${m}`));
          cases++;
        }
      });
    }
  }
  t.ok(cases > 10000, `${cases} mutated requests`);
  t.same(problems, []);
});

t.test('random requests on every endpoint', async (t) => {
  const rnd = seeded(42);
  const problems: string[] = [];
  const paths = [
    '/iclock/cdata',
    '/iclock/getrequest',
    '/iclock/devicecmd',
    '/iclock/ping',
    '/iclock/fdata',
    '/iclock/file',
    '/iclock/exchange',
    '/iclock/registry',
    '/iclock/push',
    '/iclock/querydata',
    '/iclock/rtdata',
    '/iclock/service/control',
  ];
  for (let i = 0; i < 3000; i++) {
    const query: Record<string, string> = { SN: rnd.bool() ? 'S1' : rnd.text('AB \t1\n', rnd.int(0, 4)) };
    for (let k = rnd.int(0, 4); k > 0; k--)
      query[rnd.pick(['table', 'tablename', 'type', 'cmdid', 'count', 'INFO', 'url', 'PIN', 'options'])] = rnd.text(
        'ATTLOGuser=,0123456789 time',
        rnd.int(0, 10),
      );
    const body = new Uint8Array(Array.from({ length: rnd.int(0, 200) }, () => rnd.pick([rnd.int(0, 255), 9, 10, 61, 38, 0x49, 0x44])));
    problems.push(
      ...check(
        {
          method: rnd.pick(['GET', 'POST']),
          path: rnd.pick(paths),
          query,
          headers: { cookie: rnd.text('token=;a ', rnd.int(0, 12)) },
          body,
        },
        `random ${i}`,
      ),
    );
  }
  t.same(problems, [], '3000 random requests');
});

t.test('encoders return results for random params and sync ops, never throw', async (t) => {
  const rnd = seeded(7);
  const values = [
    null,
    undefined,
    0,
    1,
    -1,
    5,
    111,
    255,
    1e9,
    'x',
    '',
    'a\tb',
    '2026-02-30',
    '2026-02-01',
    'C:1:X',
    'https://a/b',
    {},
    [],
    true,
  ];
  const keys = [
    'door_id',
    'duration',
    'pin',
    'user_id',
    'type',
    'fid',
    'retry',
    'overwrite',
    'startDate',
    'endDate',
    'url',
    'checksum',
    'size',
    'command',
  ];
  const profiles = [
    {},
    { LockCount: '2', MultiBioDataSupport: '0:1:0:0:0:0:0:0:0:1', FaceFunOn: '1', DateFmtFunOn: '1' },
    { FPVersion: '12', MaxUserNameLen: 'x' },
  ];
  for (let i = 0; i < 3000; i++) {
    const params: Record<string, unknown> = {};
    for (let k = rnd.int(0, 4); k > 0; k--) params[rnd.pick(keys)] = rnd.pick(values);
    const codec = rnd.pick(codecs);
    const profile = { version: codec.version, options: rnd.pick(profiles) };
    const context = { timeZone: rnd.pick(['UTC', 'Asia/Kolkata', 'Bad/Zone']), ...(rnd.bool() ? { userPin: rnd.pick([1, 'x', '']) } : {}) };
    const r = codec.encodePreset({ preset: rnd.pick(PRESET_IDS), params: rnd.bool() ? params : rnd.pick(values) }, profile, context);
    if (r.ok)
      t.ok(
        r.lines.every((l) => !/[\r\n\0]/.test(l)),
        'no line breaks in wire lines',
      );
    const ops: SyncOp[] = [
      {
        op: 'user.upsert',
        user: {
          pin: rnd.pick([1, 'A1', '', 'a b']),
          firstName: rnd.pick(['Ann', null, 'x\ty']),
          cardNo: rnd.pick(['1', '[15CD5B07]', 'z', null]),
          startTime: rnd.pick(['2026-01-01', 'bad', null, '2026-01-01T10:00:00Z']),
          privilege: rnd.pick([0, 14, -1]),
        },
        ...(rnd.bool() ? { doors: [rnd.int(0, 5)] } : {}),
      },
      { op: 'user.delete', pin: rnd.pick([1, 'x y']) },
      {
        op: 'template.upsert',
        template: {
          pin: 1,
          type: rnd.int(-1, 10),
          no: rnd.int(-1, 10),
          data: rnd.pick(['AAAA', 'bad', '']),
          ...(rnd.bool() ? { majorVer: '12', minorVer: '0' } : {}),
        },
      },
      { op: 'template.delete', pin: 1, ...(rnd.bool() ? { type: rnd.int(-1, 10) } : {}), ...(rnd.bool() ? { no: rnd.int(-1, 3) } : {}) },
    ];
    const s = codec.encodeSync(rnd.pick(ops), profile, context);
    if (s.ok)
      t.ok(
        s.lines.every((l) => !/[\r\n\0]/.test(l)),
        'no line breaks in sync lines',
      );
  }
});
