// Issue #32 item 18: an error nothing caught (a throw in a callback, a rejection nobody awaited)
// is logged before the process exits: the gateway's fatal handlers (src/main.ts
// installFatalHandlers) write the line synchronously, then exit with code 1. A child process
// installs them as `serve` does and then fails; its stdout must hold the fatal line.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';

const MAIN_JS = join(process.cwd(), 'dist', 'src', 'main.js');
const noDist = existsSync(MAIN_JS) ? false : `${MAIN_JS} is missing: run "npx tsc -p tsconfig.json" first`;

async function crash(how: string): Promise<{ code: number | null; stdout: string }> {
  const script = `import { installFatalHandlers } from ${JSON.stringify(pathToFileURL(MAIN_JS).href)};
installFatalHandlers({ level: 'info', format: 'json' });
${how}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout };
}

for (const [origin, how] of [
  ['uncaughtException', "setTimeout(() => { throw new Error('boom in a callback'); }, 1);"],
  ['unhandledRejection', "void Promise.reject(new Error('boom in a promise'));"],
] as const) {
  t.test(`${origin}: logged as fatal, synchronously, then exit 1`, { skip: noDist }, async (t) => {
    const r = await crash(how);
    t.equal(r.code, 1, 'exit code 1');
    const line = r.stdout
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e['level'] === 'fatal');
    t.ok(line, `a fatal line on stdout (got: ${r.stdout.slice(0, 200)})`);
    t.equal(line?.['origin'], origin);
    t.match(line?.['err'], { message: /^boom in a/ }, 'with the error');
  });
}
