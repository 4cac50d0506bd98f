/**
 * `biogate doctor [--json]`: runs src/doctor/checks.ts against the configuration this shell would
 * start BioGate with, prints one line per check (and the fix under each problem), exits 1 when
 * something is wrong (warnings alone exit 0).
 */
import { systemClock, type Clock } from '../clock.js';
import { runChecks, type CheckResult } from '../doctor/checks.js';
import type { Flags } from './args.js';
import { json, print, type CliIo } from './io.js';

const LABEL: Record<CheckResult['status'], string> = { ok: 'ok', warning: 'WARNING', problem: 'PROBLEM', skipped: 'skipped' };

export function formatChecks(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = results.flatMap((r) => [
    `  ${LABEL[r.status].padEnd(8)} ${r.name.padEnd(width)}  ${r.detail}`,
    ...(r.fix ? [`  ${''.padEnd(8)} ${''.padEnd(width)}  fix: ${r.fix}`] : []),
  ]);
  const problems = results.filter((r) => r.status === 'problem').length;
  const warnings = results.filter((r) => r.status === 'warning').length;
  const verdict =
    problems > 0
      ? `${problems} problem(s) found${warnings ? `, ${warnings} warning(s)` : ''}: BioGate will not run well until they are fixed.`
      : warnings > 0
        ? `No problems; ${warnings} warning(s).`
        : 'No problems found.';
  return [...lines, '', verdict].join('\n');
}

export async function doctorCommand(f: Flags, io: CliIo, clock: Clock = systemClock): Promise<number> {
  const results = await runChecks(io.env, clock);
  const failed = results.some((r) => r.status === 'problem');
  if (f.flag('json')) print(io, json({ ok: !failed, checks: results }));
  else print(io, formatChecks(results));
  return failed ? 1 : 0;
}
