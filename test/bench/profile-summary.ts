// Sums self time by function over a V8 .cpuprofile (written by `node --cpu-prof`) and prints the top
// entries, with each one's share of the sampled time. Issue #20: "check every path with --cpu-prof".
//
// Run: npx tsc -p tsconfig.json && node dist/test/bench/profile-summary.js FILE.cpuprofile [TOP=25] [--by=file] [--last=S]
//   --by=file sums by script (package or source file) instead of by function.
//   --last=S keeps only the profile's last S seconds (a steady state after a start-up, e.g. held terminals).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface Entry {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/** The script a frame belongs to, shortened: `better-sqlite3`, `src/devices/actor.js`, `node:internal/...`. */
function scriptOf(url: string): string {
  if (url === '') return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const own = /\/dist\/(.*)$/.exec(url);
  return own ? (own[1] as string) : url.replace(/^file:\/\//, '');
}

export function summarize(
  profile: CpuProfile,
  by: 'function' | 'file',
  lastS = Number.POSITIVE_INFINITY,
): { totalMs: number; entries: Entry[] } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const sums = new Map<string, number>();
  const span = profile.timeDeltas.reduce((a, b) => a + b, 0);
  const from = span - lastS * 1e6;
  let at = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < from) return;
    total += us;
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    const key =
      by === 'file' ? scriptOf(frame.url) : `${frame.functionName || '(anonymous)'} ${scriptOf(frame.url)}:${frame.lineNumber + 1}`;
    sums.set(key, (sums.get(key) ?? 0) + us);
  });
  const entries = [...sums].map(([name, us]) => ({ name, ms: us / 1000, share: total > 0 ? us / total : 0 })).sort((a, b) => b.ms - a.ms);
  return { totalMs: total / 1000, entries };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  if (!file) {
    process.stderr.write('usage: profile-summary FILE.cpuprofile [TOP] [--by=file]\n');
    process.exit(2);
  }
  const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 25);
  const by = args.includes('--by=file') ? 'file' : 'function';
  const last = args.find((a) => a.startsWith('--last='));
  const lastS = last === undefined ? Number.POSITIVE_INFINITY : Number(last.slice('--last='.length));
  if (!(lastS > 0)) {
    process.stderr.write(`--last must be a number of seconds above 0: ${last}\n`);
    process.exit(2);
  }
  const { totalMs, entries } = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, by, lastS);
  process.stdout.write(`${file}: ${totalMs.toFixed(0)} ms sampled\n`);
  for (const e of entries.slice(0, top))
    process.stdout.write(`${(e.share * 100).toFixed(1).padStart(5)}%  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}\n`);
}
