/**
 * Issue #12 "Slow terminals are served": a 300 KB ATTLOG upload arriving at 10 KB/s (30 s, far
 * slower than the ~16 KB per 10 s below which the HTTP engine used to reset the connection)
 * succeeds on the device endpoint. Raw node:net socket writing chunks with pauses. (The body
 * timeout that still bounds a trickling body is tested in test/http/server.test.ts.)
 */
import { connect } from 'node:net';
import t from 'tap';
import { bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const pad = (n: number): string => String(n).padStart(2, '0');

function attlog(bytes: number): { body: Buffer; records: number } {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = i % 86_400;
    const line = `${1 + (i % 500)}\t2026-02-${pad(1 + (Math.floor(i / 1000) % 28))} ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}\t0\t1\t0\t0\t0\n`;
    lines.push(line);
    size += line.length;
  }
  return { body: Buffer.from(lines.join('')), records: lines.length };
}

/** POSTs `body` over a raw socket at `bytesPerSecond` (a chunk every 100 ms); resolves with what came back and when. */
function trickle(port: number, path: string, body: Buffer, bytesPerSecond: number): Promise<{ response: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    let response = '';
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: terminal\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n`);
      let sent = 0;
      const step = Math.max(1, Math.round(bytesPerSecond / 10));
      timer = setInterval(() => {
        if (sent >= body.length) return;
        const end = Math.min(body.length, sent + step);
        socket.write(body.subarray(sent, end));
        sent = end;
      }, 100);
    });
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      response += d;
      if (/\r\n\r\n[\s\S]*OK/.test(response)) socket.end();
    });
    const done = () => {
      clearInterval(timer);
      resolve({ response, closedAfterMs: Date.now() - started });
    };
    socket.on('close', done);
    socket.on('error', () => undefined);
  });
}

t.test('300 KB at 10 KB/s on the device endpoint: OK: N, every record stored', async (t) => {
  const s = await startApp(t); // BIOGATE_DEVICE_BODY_TIMEOUT_S: the default 120 s
  await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'SLOWUP01' }, bearer(s.token)));
  const slow = attlog(300 * 1024);
  const ok = await trickle(s.port, '/iclock/cdata?SN=SLOWUP01&table=ATTLOG&Stamp=1', slow.body, 10 * 1024);
  t.match(ok.response, /^HTTP\/1\.1 200 OK\r\n/, 'the slow upload is answered');
  t.match(ok.response, new RegExp(`\\r\\n\\r\\nOK: ?${slow.records}$`), `OK: ${slow.records}`);
  t.ok(ok.closedAfterMs > 25_000, `it really was slow (${ok.closedAfterMs} ms)`);
  const stored = await fetchJson(`${s.url}/api/attendance?sn=SLOWUP01&limit=1`, { headers: bearer(s.token) });
  t.equal((stored.body as { total: number }).total, slow.records, 'every record stored');
});
