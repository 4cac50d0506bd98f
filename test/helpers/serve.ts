/**
 * `node dist/src/cli.js serve` as a separate process, for tests that need a real process (SIGKILL,
 * several nodes): only the given BIOGATE_* settings reach it; resolves once /readyz answers 200.
 * Killed (SIGKILL) at teardown if still running. Needs the build (`npm test` builds first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, type Teardown } from './app.js';

export const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');
/** The skip reason when the build is missing, else false. */
export const NO_DIST: string | false = existsSync(CLI_JS)
  ? false
  : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" (npm test does) first`;

export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves when the process is gone. */
  readonly exited: Promise<unknown>;
  stderr(): string;
}

export async function serveProcess(t: Teardown, env: Record<string, string>): Promise<ServeProcess> {
  const port = await freePort();
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const child = spawn(process.execPath, [CLI_JS, 'serve'], {
    env: {
      ...clean,
      BIOGATE_PORT: String(port),
      BIOGATE_HOST: '127.0.0.1',
      BIOGATE_LOG_LEVEL: 'warn',
      BIOGATE_SHUTDOWN_DRAIN_S: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}): ${stderr}`);
    if (
      (await fetch(`${url}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return { url, child, exited, stderr: () => stderr };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`serve not ready within 30 s: ${stderr}`);
}
