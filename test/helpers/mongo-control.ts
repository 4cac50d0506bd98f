/**
 * A MongoDB-compatible test server of the test's own (deploy/test-mongo/start.sh on a free port), with
 * its control port: `stop()` closes the listening socket and every client connection while keeping
 * the in-memory data, `start()` listens on the same port again (outage drills, issue #12). Separate
 * from the shared BIOGATE_TEST_MONGO_URL server, so other tests are not disturbed.
 *
 *   const mongo = await startControlledMongo(t);
 *   if (typeof mongo === 'string') return t.skip(mongo); // Java/Maven missing: the reason
 *   await mongo.stop(); … await mongo.start();
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Teardown } from './app.js';

const here = dirname(fileURLToPath(import.meta.url));
// test/helpers → deploy/test-mongo; compiled (dist/test/helpers) the scripts stay in the source tree
const SCRIPTS = [join(here, '..', '..', 'deploy', 'test-mongo'), join(here, '..', '..', '..', 'deploy', 'test-mongo')];

export interface ControlledMongo {
  /** `mongodb://127.0.0.1:PORT` (no database: append `/<name>`). */
  readonly server: string;
  /** Closes the listening socket and every client connection; the data stays. */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same data. */
  start(): Promise<void>;
  /** `STOPPED` or `LISTENING host:port`. */
  status(): Promise<string>;
}

/** Why the server cannot run here, or undefined when Java 17+, javac and Maven are present. */
export function mongoServerUnavailable(): string | undefined {
  for (const [tool, arg] of [
    ['java', '-version'],
    ['javac', '-version'],
    ['mvn', '-v'],
  ] as const) {
    const r = spawnSync(tool, [arg], { stdio: 'ignore', timeout: 30_000 });
    if (r.error || r.status !== 0)
      return `${tool} is not available: the outage drill needs Java 17+ and Maven for deploy/test-mongo (CI installs them)`;
  }
  return undefined;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, timeout: 300_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** One command on the control port; resolves with the server's one-line answer. */
function command(control: string, line: 'stop' | 'start' | 'status'): Promise<string> {
  const at = control.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: control.slice(0, at), port: Number(control.slice(at + 1)) });
    let answer = '';
    const timer = setTimeout(() => socket.destroy(new Error(`test-mongo control: no answer to "${line}" within 30 s`)), 30_000);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${line}\n`));
    socket.on('data', (chunk: string) => {
      answer += chunk;
      const eol = answer.indexOf('\n');
      if (eol >= 0) {
        clearTimeout(timer);
        socket.end();
        const text = answer.slice(0, eol).trim();
        if (text.startsWith('ERROR')) reject(new Error(`test-mongo control "${line}": ${text}`));
        else resolve(text);
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Starts a server for this test (stopped at teardown), or returns why it cannot. */
export async function startControlledMongo(t: Teardown): Promise<ControlledMongo | string> {
  const missing = mongoServerUnavailable();
  if (missing) return missing;
  const scripts = SCRIPTS.find((dir) => spawnSync('test', ['-x', join(dir, 'start.sh')]).status === 0);
  if (!scripts) return 'deploy/test-mongo/start.sh not found';
  const state = await mkdtemp(join(tmpdir(), 'biogate-outage-mongo-'));
  // The server exits with this process even when a timeout kills it before its teardown runs.
  const env = {
    ...process.env,
    BIOGATE_TEST_MONGO_STATE: state,
    BIOGATE_TEST_MONGO_PORT: '0',
    BIOGATE_TEST_MONGO_OWNER_PID: String(process.pid),
  };
  const out = await run(join(scripts, 'start.sh'), [], env).catch(async (err: unknown) => {
    await rm(state, { recursive: true, force: true });
    throw err;
  });
  const vars = Object.fromEntries(
    out.split('\n').flatMap((l) => (/^[A-Z_]+=/.test(l) ? [[l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]] : [])),
  );
  const url = vars['BIOGATE_TEST_MONGO_URL'];
  const pidfile = vars['BIOGATE_TEST_MONGO_PIDFILE'];
  const control = vars['BIOGATE_TEST_MONGO_CONTROL'];
  t.teardown(async () => {
    if (pidfile) await run(join(scripts, 'stop.sh'), [pidfile], env).catch(() => undefined);
    await rm(state, { recursive: true, force: true });
  });
  if (!url || !pidfile || !control) throw new Error(`deploy/test-mongo/start.sh printed no URL, pid file or control port:\n${out}`);
  return {
    server: url.replace(/\/[^/]*$/, ''),
    stop: async () => void (await command(control, 'stop')),
    start: async () => void (await command(control, 'start')),
    status: () => command(control, 'status'),
  };
}
