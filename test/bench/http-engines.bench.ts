// The two HTTP engines side by side (README "HTTP engines"): BioGate on uWebSockets.js
// and on node:http, started alike in this process, under the same load from the same generator:
//   (a) an idle v2 terminal's poll, `GET /iclock/getrequest?SN=…` for an assigned terminal (answered
//       `OK` at once: v2 holds no poll by default [PUSH-v2 §7.1]), and
//   (b) an integrator's `GET /api/me` with a bearer token (authentication, one store read, JSON),
// and, for scale, (c) `GET /healthz`: the HTTP layer alone (a constant JSON body), where the engine
// is all the work.
// Rounds alternate the engine order so neither always runs on a warmer machine; the figure per
// engine is the median of its rounds, with the node/uws ratio.
//
// The load comes from another process, so it never shares the gateway's event loop: wrk when it is
// installed (BENCH_GENERATOR=wrk), else autocannon 9 driven programmatically in a child process
// (BENCH_GENERATOR=autocannon).
//
// Run: npx tsc -p tsconfig.json && node dist/test/bench/http-engines.bench.js
// Knobs: BENCH_SECONDS per round (default 5), BENCH_ROUNDS (default 4), BENCH_CONNECTIONS (default 32).
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bearer, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';

const env = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number`);
  return v;
};

type Generator = 'wrk' | 'autocannon';
type EngineName = 'uws' | 'node';
const ENGINES: readonly EngineName[] = ['uws', 'node'];

interface Load {
  readonly name: string;
  readonly path: string;
  readonly headers: Record<string, string>;
}

async function hasWrk(): Promise<boolean> {
  try {
    await promisify(execFile)('wrk', ['--version']);
    return true;
  } catch (err) {
    // wrk --version prints its banner and exits 1; only a missing binary is ENOENT.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Requests per second (2xx only) of one round. */
async function measure(generator: Generator, url: string, load: Load, seconds: number, connections: number): Promise<number> {
  if (generator === 'wrk') {
    const args = [
      '-t2',
      `-c${connections}`,
      `-d${seconds}s`,
      ...Object.entries(load.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      `${url}${load.path}`,
    ];
    const { stdout } = await promisify(execFile)('wrk', args);
    if (/Non-2xx or 3xx responses/.test(stdout)) throw new Error(`wrk saw error responses:\n${stdout}`);
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1];
    if (rate === undefined) throw new Error(`cannot read wrk's output:\n${stdout}`);
    return Number(rate);
  }
  const child = spawn(
    process.execPath,
    [fileURLToPath(import.meta.url), 'load', url + load.path, JSON.stringify(load.headers), String(seconds), String(connections)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`autocannon child failed (${code})`);
  return Number(out.trim());
}

/** The child process: autocannon against one URL, prints 2xx requests per second. */
async function autocannonChild(url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<void> {
  type Result = { '2xx': number; non2xx: number; errors: number; duration: number };
  const autocannon = createRequire(import.meta.url)('autocannon') as (o: object) => Promise<Result>;
  const r = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`autocannon saw ${r.non2xx} non-2xx answers and ${r.errors} errors`);
  process.stdout.write(`${r['2xx'] / r.duration}\n`);
}

async function gateway(engine: EngineName, teardowns: (() => unknown)[]): Promise<StartedApp> {
  const app = await startApp({ teardown: (f) => void teardowns.push(f) }, { config: { httpEngine: engine, logLevel: 'silent' } });
  if (app.app.http.engine !== engine) throw new Error(`asked for ${engine}, got ${app.app.http.engine}`);
  if ((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'BENCHV2' }, bearer(app.token)))).res.status !== 201)
    throw new Error('assign failed');
  // The handshake makes it a known v2 terminal [PUSH-v2 §4].
  const hello = await fetch(`${app.url}/iclock/cdata?SN=BENCHV2&options=all&pushver=2.4.1`);
  if (hello.status !== 200) throw new Error(`handshake answered ${hello.status}`);
  await hello.text();
  return app;
}

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export interface EngineFigures {
  readonly load: string;
  readonly uws: number;
  readonly node: number;
  readonly uwsRounds: readonly number[];
  readonly nodeRounds: readonly number[];
}

export async function run(): Promise<{ generator: Generator; seconds: number; connections: number; figures: EngineFigures[] }> {
  const seconds = env('BENCH_SECONDS', 5);
  const rounds = env('BENCH_ROUNDS', 4);
  const connections = env('BENCH_CONNECTIONS', 32);
  const asked = process.env['BENCH_GENERATOR'];
  const generator: Generator = asked === 'wrk' || asked === 'autocannon' ? asked : (await hasWrk()) ? 'wrk' : 'autocannon';
  const teardowns: (() => unknown)[] = [];
  try {
    const apps = { uws: await gateway('uws', teardowns), node: await gateway('node', teardowns) };
    const loads = (engine: EngineName): Load[] => [
      { name: 'GET /iclock/getrequest (idle v2 terminal)', path: '/iclock/getrequest?SN=BENCHV2', headers: {} },
      { name: 'GET /api/me (bearer token)', path: '/api/me', headers: bearer(apps[engine].token) },
      { name: 'GET /healthz (the HTTP layer alone)', path: '/healthz', headers: {} },
    ];
    const figures: EngineFigures[] = [];
    for (let i = 0; i < loads('uws').length; i++) {
      const got: Record<EngineName, number[]> = { uws: [], node: [] };
      // A short warm-up on each (JIT, caches), not counted.
      for (const e of ENGINES) await measure(generator, apps[e].url, loads(e)[i] as Load, 1, connections);
      for (let r = 0; r < rounds; r++) {
        for (const e of r % 2 === 0 ? ENGINES : [...ENGINES].reverse())
          got[e].push(await measure(generator, apps[e].url, loads(e)[i] as Load, seconds, connections));
      }
      figures.push({
        load: (loads('uws')[i] as Load).name,
        uws: median(got.uws),
        node: median(got.node),
        uwsRounds: got.uws,
        nodeRounds: got.node,
      });
    }
    return { generator, seconds, connections, figures };
  } finally {
    for (const f of teardowns.reverse()) await f();
  }
}

export function report(r: Awaited<ReturnType<typeof run>>): string {
  const f = (n: number) => Math.round(n).toLocaleString('en-US');
  const lines = [
    `HTTP engines, ${r.generator}, ${r.connections} connections, ${r.seconds} s rounds (median req/s; rounds in brackets); Node ${process.versions.node}`,
  ];
  for (const x of r.figures) {
    lines.push(`  ${x.load}`);
    lines.push(`    uws  ${f(x.uws).padStart(8)} req/s  [${x.uwsRounds.map(f).join(', ')}]`);
    lines.push(`    node ${f(x.node).padStart(8)} req/s  [${x.nodeRounds.map(f).join(', ')}]`);
    lines.push(`    ratio node/uws: ${(x.node / x.uws).toFixed(2)}`);
  }
  return lines.join('\n');
}

const [role, ...args] = process.argv.slice(2);
if (role === 'load') {
  const [url, headers, seconds, connections] = args;
  await autocannonChild(url as string, JSON.parse(headers as string) as Record<string, string>, Number(seconds), Number(connections));
} else if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(report(await run()));
}
