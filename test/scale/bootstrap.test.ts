/**
 * Bootstrap once across nodes (issue #14): nodes starting at the same moment on one empty store
 * create one "Default" location and print one token between them; the others print nothing.
 *
 * Real processes (`node dist/src/cli.js serve`, started in the same tick, none awaited before the
 * others) on a fresh SQLite file and, with BIOGATE_TEST_MONGO_URL, a fresh MongoDB database; and two
 * apps in one process, whose start() calls interleave at every await (the count-then-create race
 * of before happened there every time).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type * as Tap from 'tap';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { databaseName } from '../../src/store/mongo/connect.js';
import { openStore } from '../../src/store/open.js';
import { bearer, fetchJson, freePort, tempDir, within } from '../helpers/app.js';

const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');
const noDist = existsSync(CLI_JS) ? false : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" (npm test does) first`;
const TOKEN = /bg_[A-Za-z0-9_-]{32}/g;
const mongoUrl = process.env['BIOGATE_TEST_MONGO_URL'];
const noMongo = mongoUrl ? false : 'BIOGATE_TEST_MONGO_URL is not set: start a server with `eval "$(deploy/test-mongo/start.sh)"`';

interface Node {
  readonly child: ChildProcess;
  readonly port: number;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | string>;
}

/** `biogate serve` on its own port; nothing awaited, so callers start several in one tick. */
function serve(t: Tap.Test, store: string, port: number, nodeId: string): Node {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const env = {
    ...clean,
    BIOGATE_PORT: String(port),
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_STORE: store,
    BIOGATE_LOG_LEVEL: 'warn',
    BIOGATE_SHUTDOWN_DRAIN_S: '0',
    BIOGATE_NODE_ID: nodeId,
  };
  const child = spawn(process.execPath, [CLI_JS, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await within(10_000, `${nodeId} exit`, exited).catch(() => child.kill('SIGKILL'));
    }
  });
  return { child, port, stdout: () => out, stderr: () => err, exited };
}

async function listening(node: Node): Promise<void> {
  const started = /^BioGate listening on /m;
  await within(
    60_000,
    `node on port ${node.port} listening`,
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (started.test(node.stdout())) resolve();
      };
      node.child.stdout?.on('data', check);
      void node.exited.then((code) => reject(new Error(`exited with ${code}; stderr: ${node.stderr()}`)));
      check();
    }),
  );
}

/** Starts `count` nodes at once on `store` and checks: one location, one token, printed by one node only. */
async function race(t: Tap.Test, store: string, count: number): Promise<void> {
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const nodes = ports.map((port, i) => serve(t, store, port, `node-${i + 1}`)); // same tick: a real race
  await Promise.all(nodes.map(listening));
  const printed = nodes.map((n) => n.stdout().match(TOKEN) ?? []);
  t.equal(printed.flat().length, 1, `one token printed among ${count} nodes`);
  const winners = nodes.filter((n) => /BioGate bootstrap: created location "Default"/.test(n.stdout()));
  t.equal(winners.length, 1, 'one node announced the bootstrap');
  for (const n of nodes.filter((x) => !winners.includes(x))) {
    t.match(n.stdout(), /^BioGate listening on [^\n]*\n$/, `node on port ${n.port} printed nothing else`);
  }
  t.equal(nodes.map((n) => n.stderr()).join(''), '', 'no warnings or errors');

  const token = printed.flat()[0] ?? '';
  for (const n of nodes) {
    const me = await fetchJson(`http://127.0.0.1:${n.port}/api/me`, { headers: bearer(token) });
    t.equal(me.res.status, 200, `the token works on the node on port ${n.port}`);
    t.match(me.body, { name: 'Default' });
  }
  const opened = await openStore(store);
  try {
    const locations = await opened.locations.list();
    t.same(
      locations.map((l) => l.name),
      ['Default'],
      'exactly one location in the store',
    );
    t.equal((await opened.tokens.list()).length, 1, 'and one token');
  } finally {
    await opened.close();
  }
}

t.test('processes on one fresh SQLite file: one location, one token', { skip: noDist }, async (t) => {
  const dir = await tempDir(t);
  await race(t, `sqlite:${join(dir, 'shared.db')}`, 3);
});

t.test('processes on one fresh MongoDB database: one location, one token', { skip: noDist || noMongo }, async (t) => {
  await race(t, freshMongo(t, 'bootstrap'), 3);
});

/** A fresh MongoDB database on the test server, dropped at the end. */
function freshMongo(t: Tap.Test, suffix: string): string {
  const url = mongoUrl as string;
  const name = `${databaseName(url)}_${suffix}_${process.pid}`;
  t.teardown(async () => {
    const { MongoClient } = await import('mongodb');
    const client = new MongoClient(url);
    try {
      await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  });
  return url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]*)(\/[^?]*)?/, `$1/${name}`);
}

for (const kind of ['sqlite', 'mongodb'] as const) {
  t.test(
    `two apps in one process starting together (${kind}): their start() calls interleave, one bootstraps`,
    { skip: kind === 'mongodb' && noMongo },
    async (t) => {
      const store = kind === 'sqlite' ? `sqlite:${join(await tempDir(t), 'pair.db')}` : freshMongo(t, 'bootstrap_pair');
      await pair(t, store);
    },
  );
}

async function pair(t: Tap.Test, store: string): Promise<void> {
  const build = async (nodeId: string) => {
    const announced: string[] = [];
    const config = loadConfig({ env: {}, overrides: { port: 0, host: '127.0.0.1', store, shutdownGraceS: 2, nodeId } });
    const app = await buildApp({ config, logger: createLogger({ level: 'silent' }), announce: (text) => void announced.push(text) });
    t.teardown(() => app.close());
    return { app, announced };
  };
  const [a, b] = await Promise.all([build('pair-a'), build('pair-b')]);
  const started = await Promise.all([a.app.start(), b.app.start()]);
  t.equal(started.filter((s) => s.bootstrap !== null).length, 1, 'one start() bootstrapped');
  t.equal([...a.announced, ...b.announced].join('\n').match(TOKEN)?.length, 1, 'one token announced');
  t.equal(await a.app.store.locations.count(), 1);
}
