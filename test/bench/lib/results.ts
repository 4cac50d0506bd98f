// test/bench/RESULTS.md: the last full run of `npm run bench -- --write-results` (date, machine,
// commit, the table, what bounds each missed target). The file holds one run, never a history: each
// full run replaces it, and the reasoning behind a change in the figures goes to its commit.
import { execFileSync } from 'node:child_process';
import { table, type Figure } from './figures.js';

/** What bounds a target the gateway misses, from profiles of the code as it stands (see test/bench/README.md). */
export interface Bound {
  readonly scenario: string;
  /** which figures of the scenario the note explains */
  readonly figure: RegExp;
  readonly text: string;
}

/**
 * The known bounds of the targets missed on the reference machine (2 cores, SQLite), from `--cpu-prof`
 * profiles summed with `profile-summary.js`. A missed target without an entry here is listed as not
 * analysed; a bound that stops holding is removed here with the change that lifts it.
 */
export const BOUNDS: readonly Bound[] = [
  {
    scenario: 'fanout',
    figure: /held by all/,
    text:
      'SQLite writes on the event loop: 180,000 sync ops (9,000 active users × 20 terminals), each inserted, claimed, finished and ' +
      "announced (three events an op), each row with its indexes. In the 31-s run (commit 9a63258) that was some 170 µs of the gateway's " +
      'one thread per op with no single hot spot (COMMITs 10.5 %, event appends 9.9 %, the claim `UPDATE` 8.4 %, `finish` 6.7 %); four ' +
      'times larger replies (`BIOGATE_BATCH_MAX_COMMANDS=200`) gave 28.6 s against 30.9 s, so the rows are the bound, not the commits. ' +
      'At commit f7de497 the same import costs the gateway more CPU: 67 CPU-seconds (all its threads) for ' +
      '123 s of wall time at load average 7–8, where the whole import took 31 s of wall time then, its work on one thread. A profile ' +
      "puts 40 % of its samples in `store/sqlite/commands.ts` and 26 % in the op's " +
      'compare-and-set `UPDATE … RETURNING *` alone (`cas`: claim, finish), the event appends 6 %, the sync-state counts ' +
      '(`terminal-sync.ts`) 3 %, GC 4 %. Reaching 10 s needs fewer rows per user and terminal (one command record per reply of sync ops, ' +
      'say), a change of the command model.',
  },
  {
    scenario: 'ingest',
    figure: /ATTLOG records stored/,
    text:
      'SQLite on the event loop. Since a punch write owes its event as one id range instead of a marker on every row, and ' +
      "the timestamp index is gone (migrations 45, 46), the gateway's busy samples under the load: the attendance insert 27 %, " +
      "the transaction's COMMIT 14 %, the event append 10 %, the upload handler 8 %, GC 4 %. A bare better-sqlite3 loop " +
      'inserting 100-row batches with this schema does about 100,000 rows/s on this machine: 150,000 through the gateway needs ' +
      'fewer index entries per punch or the punches and their event in one transaction (one COMMIT per upload).',
  },
  {
    scenario: 'poll',
    figure: /idle getrequest/,
    text:
      'An idle poll answers from the device snapshot without reading the store; what remains is the protocol parse, the ' +
      'authentication of the serial and the presence bookkeeping per request, beside a hello world that does nothing. Not profiled ' +
      'against the raised target yet.',
  },
  {
    scenario: 'api',
    figure: /GET \/api\/me/,
    text:
      'Every API request is authenticated (the token hashed and looked up, cached), rate-limited, logged and measured; the baseline ' +
      'is a hello world. Not profiled against the raised target yet.',
  },
  {
    scenario: 'webhooks',
    figure: /events delivered/,
    text:
      'One request at a time per subscription (its lane keeps feed order): with one POST per punch the burst is a chain of round ' +
      "trips to the receiver, which runs in the bench's own process beside the uploads. Since the delivered outcomes are written a " +
      "page at a time (9f90a4b), a profile of the burst's last 3.2 s: the gateway idle 46 % (waiting for the receiver), socket " +
      'writes 14 %, the rest spread thin. `attendance_batch` puts up to 500 punches in one POST. ' +
      'The ceiling of that chain: a bare node:http keep-alive client and server, one request at a time in one process, did ' +
      '3,686–3,754 requests/s on this machine (2026-11-30), so 5,000 in order needs several requests in flight per subscription ' +
      '(order kept per terminal rather than per subscription, or HTTP pipelining), not a cheaper request.',
  },
  {
    scenario: 'api',
    figure: /GET \/api\/users/,
    text:
      "Reading and rendering 100 users of 15 fields: the rows through better-sqlite3 (one JSON text a row: 33 % of the request's CPU) " +
      'and `JSON.stringify` of the page (28 %); the index serves the page and the total is maintained (`users-list-plan.test.ts`). ' +
      'Building the reply inside SQLite (`json_object`) measured about 220 µs against 490 µs, but it would be a second renderer of the ' +
      'user view, inside the store; not adopted.',
  },
  {
    scenario: 'devices',
    figure: /RSS per terminal/,
    text:
      "The held terminals' live state fits, the heap's garbage does not. Heap snapshots: 8.3 KB live per held v3 terminal (about half " +
      'of it the held poll: request object, abort signal, timer, suspended promises; the rest the actor, its logger and strings). Most ' +
      "of the RSS is V8's reserved old generation: a held poll lives seconds, is promoted, and stays as garbage until the next major " +
      'collection (at 18,000 terminals the reserved heap grew 51 → 518 MiB of an RSS growth of 518 MiB; about 3 KB a terminal is ' +
      'native memory outside V8). 10 KB needs both less live state and held polls that leave no JavaScript garbage. RLIMIT_NOFILE ' +
      '20,000 caps the 50,000 level at 18,000 terminals (one socket per terminal on each side of loopback).',
  },
  {
    scenario: 'chaos',
    figure: /each holding exactly the roster/,
    text:
      'The first roster is 40,000 sync ops (200 users × 200 terminals), each a row inserted, claimed and finished: the same ' +
      'bound as fanout, and no terminal is `in_sync` before about 40 s. Then the audits: at most BIOGATE_AUDIT_MAX_OUTSTANDING ' +
      '(20) at once, so 200 terminals take ten rounds of audit queries, each read below every line still owed; with the cap ' +
      'at 200 the run converged at 104 s. The refused lines go again after their back-off (at most 10 s here), and a ' +
      'three-line v3 line set goes through 74 % of the time (5 % refusals and 5 % losses a line). An audit whose query ' +
      'result is lost goes again a quarter interval after it started.',
  },
  {
    scenario: 'revocation',
    figure: /p99 DELETE→confirmed by all/,
    text:
      "Each deletion is 1,000 sync ops: 1,000 held polls answered, 1,000 results posted and polls held again, each terminal's sync " +
      'state derived again from the store (syncing, then `in_sync`, a `device.sync` event each). The gateway thread is saturated ' +
      '(3 % idle in the deletion phase): about 2 ms of CPU per terminal and deletion, spread over the compare-and-set of the ' +
      'claim and the finish, COMMITs, event appends (three a sync op), device reads and the state refresh, none above 10 %. The ' +
      'outliers (max 7–9 s) came from the audits: each compared table scanned the whole commands table twice ' +
      '(`syncedPinsElsewhere`), holding the event loop; through an index (migration 47) a run gave p50 / p99 2.17 / 3.06 s, ' +
      'max 3.16 s. Next: fewer rows and events per line (the per-terminal cursor of issue #31 item 6).',
  },
  {
    scenario: 'roundtrip',
    figure: /POST→success/,
    text:
      'The two cores: the gateway spends about 300 µs of CPU per held v3 poll cycle and the simulated terminals about one core, so a ' +
      'machine holding 10,000 terminals and the gateway is saturated while commands flow.',
  },
];

export interface RunSummary {
  readonly date: string;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly node: string;
    readonly platform: string;
  };
  readonly commit: string;
  readonly command: string;
  readonly generatorDetail: string;
  readonly store: string;
  readonly engine: string;
  readonly rounds: number;
  readonly seconds: number;
  readonly figures: readonly Figure[];
  readonly failed: readonly { readonly name: string; readonly error: string }[];
}

/** The short commit of the working tree, `unknown` outside a git checkout. */
export function currentCommit(cwd: string): string {
  try {
    return (
      execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() ||
      'unknown'
    );
  } catch {
    return 'unknown';
  }
}

/** RESULTS.md for one run: header, the table, the figures' notes, and what bounds each missed target. */
export function resultsMarkdown(run: RunSummary, bounds: readonly Bound[] = BOUNDS): string {
  const missed = run.figures.filter((f) => f.met === false);
  const lines = [
    '# Benchmark results',
    '',
    'The last full run of `npm run bench`, written by `npm run bench -- --write-results` (each full run replaces this file;',
    'how to run the benches and what each scenario measures: [README.md](README.md)).',
    '',
    `- Date: ${run.date.slice(0, 10)}`,
    `- Machine: ${run.machine.cpu}, ${run.machine.cores} cores, ${run.machine.memoryGiB} GiB, Node ${run.machine.node}, ${run.machine.platform}`,
    `- Commit: ${run.commit}`,
    `- Command: \`${run.command}\` (${Math.round(run.seconds)} s)`,
    `- Load: ${run.generatorDetail}; store ${run.store}; engine ${run.engine}; median of ${run.rounds} round(s), baseline and candidate interleaved`,
    '',
    table(run.figures),
  ];
  const notes = run.figures.filter((f) => f.note);
  if (notes.length > 0) lines.push('', '## Notes', '', ...notes.map((f) => `- ${f.scenario} / ${f.figure}: ${f.note}`));
  if (run.failed.length > 0) lines.push('', '## Scenarios that failed', '', ...run.failed.map((r) => `- ${r.name}: ${r.error}`));
  if (missed.length > 0) {
    lines.push('', '## What bounds each missed target', '');
    for (const f of missed) {
      const bound = bounds.find((b) => b.scenario === f.scenario && b.figure.test(f.figure));
      lines.push(`- **${f.scenario}: ${f.figure}** (target ${f.target ?? '—'}): ${bound?.text ?? 'not analysed yet.'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
