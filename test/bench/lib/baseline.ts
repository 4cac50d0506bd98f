// Starts and stops the raw uWebSockets.js hello world (./uws-hello.ts) as its own process.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Baseline {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startBaseline(): Promise<Baseline> {
  const proc = spawn(process.execPath, [fileURLToPath(new URL('./uws-hello.js', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d: string) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.once('exit', (code) => reject(new Error(`uws-hello exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}
