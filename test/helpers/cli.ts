/**
 * Runs `biogate` commands in-process through the real `runCommand`, capturing
 * what a script would read: exit code, stdout, stderr.
 *
 *   const r = await cli(['location', 'list', '--json'], { BIOGATE_STORE: storeUrl });
 *   t.equal(r.code, 0);
 */
import { Writable } from 'node:stream';
import { runCommand, type CliIo } from '../../src/cli/commands.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function sink(chunks: string[]): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
}

/** `env` is all the command sees (nothing leaks in from process.env). */
export async function cli(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: sink(out), stderr: sink(err), env, isTTY: false };
  const code = await runCommand(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}
