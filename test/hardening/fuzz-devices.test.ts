// Issue #12 "Verified by": the device endpoints under seeded garbage. Every recorded fixture request
// (protocols/fixtures/) is replayed over raw TCP against the running app, mutated: byte flips,
// truncation, huge fields, bad encodings (invalid UTF-8, GBK bytes), broken framing (LF-only heads,
// doubled separators, bad query strings, wrong Content-Length), aimed at an assigned v2 terminal, an
// assigned v3 terminal and an unassigned serial. Expected: no 5xx except the documented 503s
// (unassigned uploads, store outage), the process alive and answering, and the baseline untouched:
// the location's users, another location's attendance, every device assignment.
//
// BIOGATE_FUZZ_REQUESTS (default 3000) sets the count, BIOGATE_FUZZ_SEED the seed; a failure names
// the seed and the request number, so it can be replayed alone.
import { connect } from 'node:net';
import t from 'tap';
import { bearer, jsonBody, startApp } from '../helpers/app.js';
import { fixtureFiles, readFixture, splitHead } from '../protocols/fixture-reader.js';
import { seeded, type Random } from '../protocols/prng.js';

const REQUESTS = Number(process.env['BIOGATE_FUZZ_REQUESTS'] ?? 3000);
const SEED = Number(process.env['BIOGATE_FUZZ_SEED'] ?? 12);
const PARALLEL = 8;
/** A request whose framing was broken may be left waiting for bytes that never come: give up then. */
const BROKEN_WAIT_MS = 500;
/** A well-framed request must be answered; this only bounds a hang (tap runs files in parallel). */
const FRAMED_WAIT_MS = 20_000;

const V2 = 'FZV2DEV001';
const V3 = 'FZV3DEV001';
const STRAY = 'FZSTRAY001';
const OTHER = 'FZOTHER001';
/** The documented 503 bodies: an unassigned terminal's upload, a store outage. */
const DOCUMENTED_503 = new Set(['device not assigned', 'store unavailable']);

interface Template {
  readonly label: string;
  readonly version: 'v2' | 'v3';
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: readonly [string, string][];
  readonly body: Buffer;
}

interface Shot {
  readonly label: string;
  readonly bytes: Buffer;
  /** Framing left intact: the server must answer. */
  readonly framed: boolean;
  readonly head: boolean;
}

interface Reply {
  readonly status: number; // 0: closed without an answer; -1: no answer in time
  readonly body: string;
}

function templates(): Template[] {
  const out: Template[] = [];
  for (const version of ['v2', 'v3'] as const) {
    for (const file of fixtureFiles(version)) {
      const fixture = readFixture(version, file);
      fixture.exchanges.forEach((exchange, i) => {
        const { head, body } = splitHead(exchange.request);
        const [method, target] = (head[0] ?? '').split(' ');
        if (!method || !target?.startsWith('/')) return;
        const q = target.indexOf('?');
        const headers = head.slice(1).flatMap((line): [string, string][] => {
          const c = line.indexOf(':');
          const name = c > 0 ? line.slice(0, c).trim() : '';
          return name && !/^(host|content-length|connection|transfer-encoding)$/i.test(name) ? [[name, line.slice(c + 1).trim()]] : [];
        });
        out.push({
          label: `${version}/${file}#${i + 1}`,
          version,
          method,
          path: q < 0 ? target : target.slice(0, q),
          query: q < 0 ? '' : target.slice(q + 1),
          headers,
          body,
        });
      });
    }
  }
  return out;
}

const GBK_NAME = Buffer.from([0xd5, 0xc5, 0xc8, 0xfd]); // 张三 in GBK: invalid as UTF-8
const BAD_UTF8 = [
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
];

function mutateBody(rnd: Random, body: Buffer): Buffer {
  const bytes = Buffer.from(body);
  switch (rnd.int(0, 9)) {
    case 0: // byte flips
      for (let i = rnd.int(1, 8); i > 0 && bytes.length > 0; i--) {
        const at = rnd.int(0, bytes.length - 1);
        bytes[at] = (bytes[at] as number) ^ (1 << rnd.int(0, 7));
      }
      return bytes;
    case 1: // truncation
      return bytes.subarray(0, rnd.int(0, bytes.length));
    case 2: {
      // a huge field: a long run inside a line, or a line of only separators
      const at = rnd.int(0, bytes.length);
      const run = Buffer.alloc(rnd.pick([300, 5_000, 70_000, 400_000]), rnd.pick(['A', '9', '\t', '=', ',']));
      return Buffer.concat([bytes.subarray(0, at), run, bytes.subarray(at)]);
    }
    case 3: {
      // invalid UTF-8 and GBK-encoded names spliced in
      const at = rnd.int(0, bytes.length);
      return Buffer.concat([bytes.subarray(0, at), rnd.bool() ? GBK_NAME : rnd.pick(BAD_UTF8), bytes.subarray(at)]);
    }
    case 4: // CR LF ↔ LF, or no line breaks at all
      return Buffer.from(
        rnd.pick([
          (s: string) => s.replace(/\r?\n/g, '\r\n'),
          (s: string) => s.replace(/\r\n/g, '\n'),
          (s: string) => s.replace(/\r?\n/g, ''),
        ])(bytes.toString('latin1')),
        'latin1',
      );
    case 5: // doubled separators
      return Buffer.from(
        bytes.toString('latin1').replace(/[\t\n=,&]/g, (c) => (rnd.int(0, 3) === 0 ? c + c : c)),
        'latin1',
      );
    case 6: // random bytes
      return Buffer.from(Array.from({ length: rnd.int(0, 600) }, () => rnd.int(0, 255)));
    case 7: {
      // a line duplicated many times
      const lines = bytes.toString('latin1').split('\n');
      const line = rnd.pick(lines);
      return Buffer.from([...lines, ...Array.from({ length: rnd.int(2, 2_000) }, () => line)].join('\n'), 'latin1');
    }
    case 8: // NULs and control characters
      for (let i = rnd.int(1, 10); i > 0; i--) {
        const at = rnd.int(0, Math.max(0, bytes.length - 1));
        if (bytes.length > 0) bytes[at] = rnd.pick([0, 1, 8, 11, 27, 127]);
      }
      return bytes;
    default:
      return bytes;
  }
}

function mutateQuery(rnd: Random, query: string, sn: string): string {
  const pairs = query
    .split('&')
    .filter((p) => p.length > 0)
    .map((p) => (/^SN=/i.test(p) ? `SN=${sn}` : p));
  if (!pairs.some((p) => /^SN=/i.test(p))) pairs.unshift(`SN=${sn}`);
  switch (rnd.int(0, 9)) {
    case 0:
      return pairs.concat(`SN=${rnd.pick([V2, V3, STRAY, ''])}`).join('&'); // SN twice
    case 1:
      return pairs
        .map((p) =>
          /^SN=/i.test(p)
            ? rnd.pick([
                'SN=',
                'SN',
                'SN=%',
                'SN=%zz',
                'SN=%00',
                `SN=${'9'.repeat(300)}`,
                'SN=a/b',
                'SN=%E5%BC%A0',
                'SN=%FF%FE',
                'SN=a%20b',
                'SN=<x>',
              ])
            : p,
        )
        .join('&');
    case 2:
      return `${pairs.join('&')}&${rnd.pick(['%', '%zz=1', '==', '&&&', '=x', 'table=%GG', `pad=${'x'.repeat(rnd.int(100, 9_000))}`, 'a=%E4%B8', 'Stamp=-1', 'Stamp=99999999999999999999'])}`;
    case 3:
      return pairs
        .map((p) => p.replace(/=(.*)$/, (_m, v: string) => `=${rnd.pick([v, '', v + v, '%' + v, encodeURIComponent(v) + '%'])}`))
        .join('&');
    case 4:
      return pairs.join(rnd.pick(['&&', ';', '&amp;']));
    case 5:
      return `${pairs.join('&')}&table=${rnd.pick(['ATTLOG', 'OPERLOG', 'BIODATA', 'options', 'rtlog', 'tabledata', 'zzz', '', '%00'])}&tablename=${rnd.pick(['user', 'biodata', 'transaction', 'errorlog', 'ATTPHOTO', 'x'])}`;
    default:
      return pairs.join('&');
  }
}

function build(rnd: Random, tpl: Template, index: number): Shot {
  const sn = rnd.int(0, 5) === 0 ? STRAY : tpl.version === 'v2' ? (rnd.int(0, 7) === 0 ? V3 : V2) : rnd.int(0, 7) === 0 ? V2 : V3;
  const body = rnd.int(0, 4) === 0 ? tpl.body : mutateBody(rnd, tpl.body);
  const query = mutateQuery(rnd, tpl.query, sn);
  const method = rnd.int(0, 15) === 0 ? rnd.pick(['GET', 'POST', 'PUT', 'HEAD']) : tpl.method;
  const label = `#${index} ${tpl.label} ${method} sn=${sn}`;
  const headers = tpl.headers.filter(() => rnd.int(0, 9) > 0).map(([k, v]) => `${k}: ${v}`);
  const framing = rnd.int(0, 9) === 0 ? rnd.int(0, 6) : -1;
  let length = String(body.length);
  let eol = '\r\n';
  let line = `${method} ${tpl.path}${query ? `?${query}` : ''} HTTP/1.1`;
  switch (framing) {
    case 0:
      eol = '\n';
      break; // LF-only head
    case 1:
      headers.push('X-Junk:: ::', 'Cookie: ;;;=;', 'Content-Type: text/plain; charset=gbk');
      break;
    case 2:
      length = String(Math.max(0, body.length - rnd.int(1, 50)));
      break; // body longer than announced
    case 3:
      length = String(body.length + rnd.int(1, 1_000));
      break; // announced bytes that never come
    case 4:
      length = rnd.pick(['-1', 'abc', '99999999999999999999', '1e3', ' 5']);
      break;
    case 5:
      line = rnd.pick([
        `${method} ${tpl.path}?${query}`,
        `${method}  ${tpl.path}?${query} HTTP/1.1`,
        `${method} ${tpl.path}?${query}#frag HTTP/1.1`,
        `${method} ${tpl.path}?${query} HTTP/9.9`,
        `${method} http://x${tpl.path}?${query} HTTP/1.1`,
      ]);
      break;
    case 6:
      headers.push('Transfer-Encoding: chunked');
      break; // with a body that is not chunked
    default:
      break;
  }
  const head = [line, 'Host: 127.0.0.1', ...headers, `Content-Length: ${length}`, 'Connection: close'].join(eol) + eol + eol;
  return {
    label,
    bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]),
    framed: framing < 0 || framing === 1,
    head: method === 'HEAD',
  };
}

function send(port: number, bytes: Buffer, head: boolean, waitMs: number): Promise<Reply> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (reply: Reply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reply);
    };
    const parse = (): Reply | undefined => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const head = all.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      const body = all.subarray(end + 4);
      if (length && !head && body.length < Number(length[1])) return undefined; // a HEAD answer has no body
      return { status, body: body.subarray(0, length ? Number(length[1]) : body.length).toString('utf8') };
    };
    const timer = setTimeout(() => finish(parse() ?? { status: -1, body: '' }), waitMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const r = parse();
      if (r && /\r\ncontent-length:/i.test(Buffer.concat(chunks).toString('latin1'))) finish(r);
    });
    socket.on('end', () => finish(parse() ?? { status: 0, body: '' }));
    socket.on('error', () => finish(parse() ?? { status: 0, body: '' }));
    socket.on('connect', () => socket.write(bytes));
  });
}

t.test(`device endpoints under ${REQUESTS} mutated fixture requests (seed ${SEED})`, async (t) => {
  const app = await startApp(t, { config: { longpollS: 0 } });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const store = app.app.store;
  const now = new Date().toISOString();

  // Baseline: users of this location, two assigned terminals, a serial seen but unassigned, and
  // another location with a terminal and punches of its own.
  for (const pin of [1, 1452, 8965])
    t.equal((await api('POST', '/api/users', { pin, first_name: `Base ${pin}`, card_no: '123' })).status, 201);
  t.equal((await api('POST', '/api/devices', { sn: V2 })).status, 201);
  t.equal((await api('POST', '/api/devices', { sn: V3, version: '3.0.0' })).status, 201);
  t.equal((await fetch(`${app.url}/iclock/cdata?SN=${STRAY}&options=all&pushver=2.4.1`)).status, 200);
  const other = await store.locations.create({ name: 'Other', timezone: 'UTC' }, now);
  t.equal((await store.devices.assign(other.id, OTHER, { name: null }, now)).outcome, 'assigned');
  await store.attendance.record(
    [1, 2, 3].map((i) => ({
      location_id: other.id,
      sn: OTHER,
      pin: '1452',
      user_id: null,
      timestamp: `2015-07-30T15:16:2${i}.000Z`,
      local_time: `2015-07-30 15:16:2${i}`,
      status: 0,
      verify: 1,
      work_code: null,
    })),
    now,
  );
  const snapshot = async () => ({
    users: (await store.users.list(app.locationId, {}, { offset: 0, limit: 1_000 })).items,
    otherAttendance: (await store.attendance.list(other.id, {}, { offset: 0, limit: 1_000 })).items,
    assignment: await Promise.all(
      [V2, V3, STRAY, OTHER].map(async (sn) => [sn, (await store.devices.getBySerial(sn))?.location_id ?? null]),
    ),
  });
  const before = await snapshot();
  t.same(before.assignment, [
    [V2, app.locationId],
    [V3, app.locationId],
    [STRAY, null],
    [OTHER, other.id],
  ]);

  const rnd = seeded(SEED);
  const pool = templates();
  t.ok(pool.length > 30, `${pool.length} fixture requests to mutate`);
  const shots = Array.from({ length: REQUESTS }, (_, i) => build(rnd, rnd.pick(pool), i));

  const problems: string[] = [];
  const counts = new Map<string, number>();
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let i = next++; i < shots.length; i = next++) {
        const shot = shots[i] as Shot;
        const reply = await send(app.port, shot.bytes, shot.head, shot.framed ? FRAMED_WAIT_MS : BROKEN_WAIT_MS);
        const kind = reply.status <= 0 ? (reply.status === 0 ? 'closed' : 'no answer') : String(reply.status);
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
        if (reply.status >= 500 && !(reply.status === 503 && DOCUMENTED_503.has(reply.body)))
          problems.push(`${shot.label}: ${reply.status} ${reply.body.slice(0, 200)}`);
        if (reply.status <= 0 && shot.framed) problems.push(`${shot.label}: ${kind} for a well-framed request`);
      }
    }),
  );
  t.comment(
    `${REQUESTS} requests in ${Date.now() - started} ms (seed ${SEED}): ${[...counts]
      .sort()
      .map(([k, n]) => `${k}×${n}`)
      .join(', ')}`,
  );
  t.same(
    problems.slice(0, 20),
    [],
    `no 5xx but the documented 503s, and an answer to every well-framed request (${problems.length} problems)`,
  );

  // The process is alive and serves both sides; the baseline is as it was.
  t.equal((await fetch(`${app.url}/healthz`)).status, 200, 'alive');
  t.equal((await api('GET', '/api/me')).status, 200, 'the API answers');
  const hs = await fetch(`${app.url}/iclock/cdata?SN=${V2}&options=all&pushver=2.4.1`);
  t.equal(hs.status, 200, 'a terminal still gets its handshake');
  const after = await snapshot();
  t.same(after.users, before.users, 'users unchanged');
  t.same(after.otherAttendance, before.otherAttendance, "another location's attendance unchanged");
  t.same(after.assignment, before.assignment, 'device assignments unchanged');
});
