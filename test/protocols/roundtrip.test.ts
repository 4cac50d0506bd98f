// decode → encode round trips where the formats are symmetric: user records, templates, ZK packed time,
// card hex, parameter lists, command results.
import t from 'tap';
import type { DeviceEvent, DeviceProfile, SyncOp, WireRequest } from '../../protocols/codec.js';
import { cardToHex, codecFor, parseCard, zkDecode, zkEncode } from '../../protocols/index.js';
import { parseDataCommand } from '../../protocols/shared/command-line.js';
import { parseOptions } from '../../protocols/shared/options.js';
import { parseResults } from '../../protocols/shared/results.js';
import { seeded } from './prng.js';

const v2 = codecFor('2.0.0');
const v3 = codecFor('3.0.0');
const ctx = { timeZone: 'UTC' };
const upload = (query: Record<string, string>, body: string): readonly DeviceEvent[] =>
  v2.decode({
    method: 'POST',
    path: '/iclock/cdata',
    query: { SN: 'RT', ...query },
    headers: {},
    body: new TextEncoder().encode(body),
  } satisfies WireRequest).events;
type RecordOf<T extends DeviceEvent['type']> =
  Extract<DeviceEvent, { type: T }> extends { readonly records: readonly (infer R)[] } ? R : never;
const first = <T extends DeviceEvent['type']>(events: readonly DeviceEvent[], type: T): RecordOf<T> | undefined => {
  const e = events.find((x) => x.type === type);
  if (e === undefined || !('records' in e)) throw new Error(`no ${type}`);
  return e.records[0] as RecordOf<T> | undefined;
};
const one = (r: ReturnType<typeof v2.encodeSync>): string =>
  r.ok && r.lines.length > 0 ? (r.lines[0] as string) : `FAILED ${r.ok ? '' : r.reason}`;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const rnd = seeded(2026);
const base64 = (): string => rnd.text(B64, rnd.int(1, 60) * 4);
const name = (): string => rnd.pick(['', 'Ann', 'Bo Li', 'Émile', '张伟', 'Zoë']);

t.test('users: SyncUser → v2 wire → USER upload line → UserRecord (COMMANDS §5.1, PUSH-v2 §6.4)', async (t) => {
  for (let i = 0; i < 300; i++) {
    const user = {
      pin: rnd.int(1, 99999999),
      firstName: name(),
      lastName: name(),
      privilege: rnd.pick([0, 2, 6, 14]),
      password: rnd.bool() ? rnd.int(0, 999999) : null,
      cardNo: rnd.bool() ? String(rnd.int(1, 2 ** 32 - 1)) : null,
      group: rnd.int(1, 99),
      verify: rnd.bool() ? rnd.int(0, 15) : null,
    };
    const wire = one(v2.encodeSync({ op: 'user.upsert', user }, { version: '2.0.0', options: {} }, ctx));
    const rec = first(upload({ table: 'OPERLOG' }, wire.replace(/^DATA UPDATE USERINFO /, 'USER ')), 'users');
    const fullName = [user.firstName, user.lastName].filter((x) => x !== '').join(' ');
    t.same(
      rec && [rec.pin, rec.name, rec.privilege, rec.password, rec.cardNo, rec.group, rec.verify, rec.timeZones],
      [
        String(user.pin),
        fullName,
        user.privilege,
        user.password === null ? '' : String(user.password),
        user.cardNo ?? '',
        user.group,
        user.verify,
        '0000000100000000',
      ],
      wire,
    );
  }
});

t.test('users: UserRecord (A13 style) → SyncUser → wire → same fields', async (t) => {
  const rec = first(
    upload({ table: 'OPERLOG' }, 'USER PIN=982\tName=Richard\tPri=0\tPasswd=9822\tCard=[15CD5B07]\tGrp=1\tTZ=0000000100000000'),
    'users',
  );
  if (rec === undefined) throw new Error('no record');
  const wire = one(
    v2.encodeSync(
      {
        op: 'user.upsert',
        user: {
          pin: rec.pin,
          firstName: rec.name,
          password: rec.password,
          cardNo: rec.cardNo,
          group: rec.group ?? 0,
          privilege: rec.privilege ?? 0,
          timeZones: rec.timeZones,
        },
      },
      { version: '2.0.0', options: {} },
      ctx,
    ),
  );
  t.equal(wire, 'DATA UPDATE USERINFO PIN=982\tName=Richard\tPri=0\tPasswd=9822\tCard=123456789\tGrp=1\tTZ=0000000100000000');
  const fields = parseDataCommand(wire)?.fields;
  t.same(fields && { ...fields }, {
    pin: '982',
    name: 'Richard',
    pri: '0',
    passwd: '9822',
    card: '123456789',
    grp: '1',
    tz: '0000000100000000',
  });
});

t.test('users: SyncUser → v3 wire → tabledata user row → UserRecord (COMMANDS §5.1, PUSH-v3 §7.4)', async (t) => {
  const profile: DeviceProfile = { version: '3.0.0', options: { DateFmtFunOn: '1' } };
  for (let i = 0; i < 200; i++) {
    const user = {
      pin: rnd.int(1, 99999999),
      firstName: name(),
      privilege: rnd.pick([0, 2, 6, 14]),
      password: rnd.int(0, 9999),
      cardNo: String(rnd.int(1, 99999)),
      group: rnd.int(0, 99),
      startTime: `20${rnd.int(10, 40)}-0${rnd.int(1, 9)}-1${rnd.int(0, 9)}`,
    };
    const result = v3.encodeSync({ op: 'user.upsert', user }, profile, ctx);
    const wire = one(result);
    const row = wire.replace(/^DATA UPDATE user /, 'user ');
    const events = v3.decode({
      method: 'POST',
      path: '/iclock/cdata',
      query: { SN: 'RT', table: 'tabledata', tablename: 'user', count: '1' },
      headers: {},
      body: new TextEncoder().encode(row),
    }).events;
    const rec = first(events, 'users');
    const start = zkDecode(Number(rec?.startTime));
    t.same(
      rec && [rec.pin, rec.name, rec.privilege, rec.password, rec.cardNo, rec.group, rec.endTime],
      [String(user.pin), user.firstName, user.privilege, String(user.password), user.cardNo, user.group, '0'],
      wire,
    );
    t.equal(start && `${start.year}-${String(start.month).padStart(2, '0')}-${String(start.day).padStart(2, '0')}`, user.startTime);
  }
});

t.test('templates: encode → upload line → decode (COMMANDS §5.3–§5.4)', async (t) => {
  for (let i = 0; i < 200; i++) {
    const data = base64();
    const no = rnd.int(0, 9);
    const duress = rnd.bool();
    const fp: SyncOp = { op: 'template.upsert', template: { pin: 7, type: 1, no, duress, data } };
    const fingertmp = one(v2.encodeSync(fp, { version: '2.0.0', options: {} }, ctx));
    t.match(first(upload({ table: 'OPERLOG' }, fingertmp.replace(/^DATA UPDATE FINGERTMP /, 'FP ')), 'fingerprintTemplates'), {
      pin: '7',
      fingerIndex: no,
      duress,
      valid: duress ? 3 : 1,
      template: data,
      size: data.length,
      sizeMismatch: false,
      usable: true,
    });
    const bio: SyncOp = {
      op: 'template.upsert',
      template: {
        pin: 8,
        type: rnd.pick([1, 2, 7, 8, 9]),
        no,
        index: rnd.int(0, 2),
        majorVer: String(rnd.int(1, 40)),
        minorVer: String(rnd.int(0, 9)),
        format: rnd.int(0, 2),
        data,
      },
    };
    const biodata = one(v2.encodeSync(bio, { version: '2.0.0', options: { MultiBioDataSupport: '1:1:1:1:1:1:1:1:1:1' } }, ctx));
    const b = bio.op === 'template.upsert' ? bio.template : undefined;
    t.match(first(upload({ table: 'BIODATA' }, biodata.replace(/^DATA UPDATE /, '')), 'bioTemplates'), {
      pin: '8',
      type: b?.type,
      no,
      index: b?.index,
      majorVer: b?.majorVer,
      minorVer: b?.minorVer,
      format: b?.format,
      template: data,
      valid: 1,
      usable: true,
    });
    const v10 = one(v3.encodeSync(fp, { version: '3.0.0', options: {} }, ctx));
    const row = v10.replace(/^DATA UPDATE templatev10 /, 'templatev10 ');
    const events = v3.decode({
      method: 'POST',
      path: '/iclock/cdata',
      query: { SN: 'RT', table: 'tabledata', tablename: 'templatev10' },
      headers: {},
      body: new TextEncoder().encode(row),
    }).events;
    t.match(first(events, 'fingerprintTemplates'), { pin: '7', fingerIndex: no, duress, template: data });
    const lower = one(v3.encodeSync(bio, { version: '3.0.0', options: { MultiBioDataSupport: '1:1:1:1:1:1:1:1:1:1' } }, ctx)).replace(
      /^DATA UPDATE biodata /,
      'biodata ',
    );
    const bioEvents = v3.decode({
      method: 'POST',
      path: '/iclock/cdata',
      query: { SN: 'RT', table: 'tabledata', tablename: 'biodata' },
      headers: {},
      body: new TextEncoder().encode(lower),
    }).events;
    t.match(first(bioEvents, 'bioTemplates'), { pin: '8', no, template: data, majorVer: b?.majorVer });
  }
  const face = one(
    v2.encodeSync(
      { op: 'template.upsert', template: { pin: 3, type: 2, no: 0, data: 'AAAA' } },
      { version: '2.0.0', options: { FaceFunOn: '1' } },
      ctx,
    ),
  );
  t.match(first(upload({ table: 'OPERLOG' }, face.replace(/^DATA UPDATE /, '')), 'faceTemplates'), {
    pin: '3',
    faceIndex: 0,
    valid: 1,
    size: 4,
    template: 'AAAA',
  });
});

t.test('ZK packed time round trips (PUSH-v3 §13.1)', async (t) => {
  for (let i = 0; i < 2000; i++) {
    const wall = {
      year: rnd.int(2000, 2135),
      month: rnd.int(1, 12),
      day: rnd.int(1, 31),
      hour: rnd.int(0, 23),
      minute: rnd.int(0, 59),
      second: rnd.int(0, 59),
    };
    const packed = zkEncode(wall);
    if (packed === undefined || zkEncode(zkDecode(packed) ?? wall) !== packed) t.fail(`wall ${JSON.stringify(wall)}`);
    const n = rnd.int(0, 2 ** 32 - 1);
    const back = zkDecode(n);
    if (back === undefined || zkEncode(back) !== n) t.fail(`packed ${n}`);
  }
  t.pass('4000 conversions');
});

t.test('card hex round trips (COMMANDS §3.6)', async (t) => {
  for (let i = 0; i < 1000; i++) {
    const n = String(rnd.int(0, 2 ** 32 - 1));
    const hex = cardToHex(n);
    if (hex === undefined || parseCard(hex) !== n) t.fail(n);
  }
  t.pass('1000 cards');
});

t.test('parameter lists and command results round trip', async (t) => {
  for (let i = 0; i < 300; i++) {
    const map: Record<string, string> = {};
    for (let k = rnd.int(1, 8); k > 0; k--)
      map[`${rnd.bool() ? '~' : ''}K${rnd.text('abcXYZ', 4)}`] = rnd.text('abc 012.=:-', rnd.int(0, 10));
    const text = Object.entries(map)
      .map(([k, v]) => `${k}=${v}`)
      .join(rnd.bool() ? ',' : '\n');
    const parsed = parseOptions(text).options;
    const expected: Record<string, string> = {};
    for (const [k, v] of Object.entries(map)) expected[k.replace(/^~/, '')] = v;
    t.same({ ...parsed.values }, expected);
    const results = Array.from({ length: rnd.int(1, 5) }, (_, j) => ({
      id: `${j}${rnd.text('ab12', 3)}`,
      returnCode: rnd.int(-1010, 50),
      cmd: rnd.pick(['DATA', 'CONTROL DEVICE', 'INFO']),
    }));
    const body = results.map((r) => `ID=${r.id}&Return=${r.returnCode}&CMD=${r.cmd}`).join(rnd.bool() ? '\n' : '\r\n');
    t.same(
      parseResults(body).results.map((r) => ({ id: r.id, returnCode: r.returnCode, cmd: r.cmd })),
      results,
    );
  }
});
