// `biogate simulate`: run a fleet of simulated terminals from the command line.

import { parseSimulateArgs, SIMULATE_USAGE } from './cli-args.js';
import { runSimulation } from './simulation.js';
import { formatSummary } from './summary.js';

export interface SimulateIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** rewrite one progress line with `\r` instead of printing a line every few seconds */
  isTTY: boolean;
  /** aborting it (e.g. on SIGINT) ends the run and prints the summary */
  signal?: AbortSignal;
}

/** On a TTY, rewrite one line (`\r`, clear to end of line); otherwise print a line each time. */
export function progressWriter(stdout: NodeJS.WritableStream, isTTY: boolean): (line: string) => void {
  return isTTY ? (line) => stdout.write(`\r${line}\x1b[K`) : (line) => stdout.write(`${line}\n`);
}

/** Exit code: 0 after a run where at least one device connected, 1 when none did, 2 for bad flags. */
export async function simulateCommand(argv: string[], io: SimulateIo): Promise<number> {
  const parsed = parseSimulateArgs(argv);
  if (parsed.kind === 'help') {
    io.stdout.write(SIMULATE_USAGE);
    return 0;
  }
  if (parsed.kind === 'error') {
    io.stderr.write(`${parsed.errors.map((e) => `biogate simulate: ${e}`).join('\n')}\n\n${SIMULATE_USAGE}`);
    return 2;
  }
  const { args } = parsed;
  const summary = await runSimulation({
    url: args.url,
    devices: args.devices,
    protocol: args.protocol,
    snPrefix: args.snPrefix,
    fast: args.fast,
    ...(args.faults === undefined ? {} : { faults: args.faults }),
    ...(args.durationS === undefined ? {} : { durationS: args.durationS }),
    ...(args.punchesPerMinute === undefined ? {} : { punchesPerMinute: args.punchesPerMinute }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    progress: progressWriter(io.stdout, io.isTTY),
    progressIntervalMs: io.isTTY ? 500 : 5000,
  });
  io.stdout.write(`${io.isTTY ? '\n' : ''}${formatSummary(summary).join('\n')}\n`);
  return summary.connected > 0 ? 0 : 1;
}
