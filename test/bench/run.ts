// `npm run bench -- [--scenario NAME[,NAME…]] [--json FILE] [--write-results] [--smoke] [--store mongodb://…] [--engine uws|node]`:
// starts BioGate as its own process per scenario, drives it with wrk (or autocannon when wrk is not
// installed) or with simulated terminals, and prints each figure with its ratio to a raw uWebSockets.js
// hello world driven the same way in the same run. See test/bench/README.md.
import { Command, InvalidArgumentError } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context, Scenario } from './lib/context.js';
import { PartialFailure, table, type Figure } from './lib/figures.js';
import { profileGatewaysInto } from './lib/gateway.js';
import { detectGenerator, WRK_THREADS, type GeneratorName } from './lib/load.js';
import { currentCommit, resultsMarkdown } from './lib/results.js';
import { apiScenario } from './scenarios/api.js';
import { chaosScenario } from './scenarios/chaos.js';
import { devicesScenario } from './scenarios/devices.js';
import { exportScenario } from './scenarios/export.js';
import { fanoutAreasScenario, fanoutScenario } from './scenarios/fanout.js';
import { ingestScenario } from './scenarios/ingest.js';
import { microScenarios } from './scenarios/micro.js';
import { mqttScenario } from './scenarios/mqtt.js';
import { pollScenario } from './scenarios/poll.js';
import { revocationScenario } from './scenarios/revocation.js';
import { roundtripScenario } from './scenarios/roundtrip.js';
import { webhookFairnessScenario } from './scenarios/webhook-fairness.js';
import { webhooksScenario } from './scenarios/webhooks.js';

export const SCENARIOS: readonly Scenario[] = [
  pollScenario,
  ingestScenario,
  apiScenario,
  fanoutScenario,
  fanoutAreasScenario,
  revocationScenario,
  chaosScenario,
  webhooksScenario,
  webhookFairnessScenario,
  mqttScenario,
  roundtripScenario,
  devicesScenario,
  exportScenario,
  ...microScenarios,
];

export interface BenchReport {
  readonly date: string;
  readonly command: string;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly node: string;
    readonly platform: string;
  };
  readonly generator: GeneratorName;
  readonly generatorDetail: string;
  readonly store: string;
  readonly engine: string;
  readonly smoke: boolean;
  readonly rounds: number;
  readonly scenarios: readonly { readonly name: string; readonly seconds: number; readonly error: string | null }[];
  readonly figures: readonly Figure[];
}

/** Where `--write-results` writes: test/bench/RESULTS.md of the source tree (this file runs from dist/test/bench/). */
export const RESULTS_FILE = fileURLToPath(new URL('../../../test/bench/RESULTS.md', import.meta.url));

interface Flags {
  scenario?: string;
  json?: string;
  writeResults?: boolean;
  smoke?: boolean;
  store?: string;
  engine: string;
  generator?: string;
  cpuProf?: string;
}

function parse(argv: readonly string[]): Flags {
  const names = SCENARIOS.map((s) => s.name);
  const program = new Command('bench')
    .description('BioGate benchmark harness (test/bench/README.md)')
    .option('--scenario <names>', `comma-separated scenarios (default: every default one). One of: ${names.join(', ')}`, (v: string) => {
      for (const n of v.split(','))
        if (!names.includes(n)) throw new InvalidArgumentError(`unknown scenario "${n}" (one of ${names.join(', ')})`);
      return v;
    })
    .option('--json <file>', 'also write the figures and machine info as JSON')
    .option(
      '--write-results',
      'a full run: write date, machine, commit, the table and what bounds each missed target to test/bench/RESULTS.md',
    )
    .option('--smoke', 'tiny sizes and one round: proves the harness runs (CI); the figures mean nothing')
    .option('--store <url>', 'a mongodb:// URL (a fresh database per scenario); default: SQLite in a temporary directory', (v: string) => {
      if (!/^mongodb(\+srv)?:\/\//.test(v)) throw new InvalidArgumentError('must be a mongodb:// URL (SQLite is the default)');
      return v;
    })
    .option(
      '--engine <engine>',
      'HTTP engine of the gateway (BIOGATE_HTTP_ENGINE): uws or node',
      (v: string) => {
        if (v !== 'uws' && v !== 'node') throw new InvalidArgumentError('must be uws or node');
        return v;
      },
      'uws',
    )
    .option('--generator <name>', 'force the load generator: wrk or autocannon (default: wrk when installed)', (v: string) => {
      if (v !== 'wrk' && v !== 'autocannon') throw new InvalidArgumentError('must be wrk or autocannon');
      return v;
    })
    .option(
      '--cpu-prof <dir>',
      'run every gateway under node --cpu-prof, writing its profile into DIR (summarise with dist/test/bench/profile-summary.js)',
    )
    .allowExcessArguments(false);
  program.parse([...argv], { from: 'user' });
  const flags = program.opts<Flags>();
  if (flags.writeResults === true && (flags.smoke === true || flags.scenario !== undefined)) {
    program.error('error: --write-results records a full run: leave out --scenario and --smoke', { exitCode: 2 });
  }
  return flags;
}

export async function main(argv: readonly string[]): Promise<number> {
  const flags = parse(argv);
  const generator = (flags.generator as GeneratorName | undefined) ?? detectGenerator();
  const smoke = flags.smoke === true;
  if (flags.cpuProf) {
    mkdirSync(flags.cpuProf, { recursive: true });
    profileGatewaysInto(resolve(flags.cpuProf));
  }
  const ctx: Context = {
    smoke,
    store: flags.store ?? 'sqlite',
    engine: flags.engine,
    generator,
    rounds: smoke ? 1 : 3,
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const chosen = flags.scenario
    ? SCENARIOS.filter((s) => (flags.scenario as string).split(',').includes(s.name))
    : SCENARIOS.filter((s) => s.inDefault);
  const figures: Figure[] = [];
  const ran: { name: string; seconds: number; error: string | null }[] = [];
  const cpu = cpus();
  const build = (): BenchReport => ({
    date: new Date().toISOString(),
    command: `npm run bench -- ${argv.join(' ')}`.trim(),
    machine: {
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cores: cpu.length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
    },
    generator,
    generatorDetail:
      generator === 'wrk'
        ? `wrk, ${WRK_THREADS} threads`
        : `autocannon 9, in the bench process (${flags.generator ? 'chosen with --generator' : 'fallback: wrk is not installed'})`,
    store: flags.store ? 'mongodb' : 'sqlite',
    engine: flags.engine,
    smoke,
    rounds: ctx.rounds,
    scenarios: ran,
    figures,
  });
  const started = performance.now();
  for (const s of chosen) {
    ctx.log(`# ${s.name}: ${s.description}`);
    const t0 = performance.now();
    let error: string | null = null;
    try {
      const got = await s.run(ctx);
      figures.push(...got);
      for (const f of got)
        ctx.log(`  ${f.figure}: ${f.value.toFixed(2)} ${f.unit}${f.ratio !== null ? ` (ratio ${f.ratio.toFixed(3)})` : ''}`);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
      if (err instanceof PartialFailure) figures.push(...err.figures);
      ctx.log(`  FAILED: ${error}`);
    }
    ran.push({ name: s.name, seconds: (performance.now() - t0) / 1000, error });
    // Written after every scenario, so a long run stopped half-way still leaves what it measured.
    if (flags.json) writeFileSync(flags.json, `${JSON.stringify(build(), null, 2)}\n`);
  }
  const report = build();
  const text = [
    table(figures),
    '',
    `Generator: ${report.generatorDetail}; store ${report.store}; engine ${report.engine}; median of ${ctx.rounds} round(s), baseline and candidate interleaved.`,
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGiB} GiB, Node ${report.machine.node}; ${report.date}; ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    ...figures.filter((f) => f.note).map((f) => `- ${f.scenario} / ${f.figure}: ${f.note}`),
    ...ran.filter((r) => r.error).map((r) => `FAILED ${r.name}: ${r.error}`),
  ].join('\n');
  process.stdout.write(`${text}\n`);
  if (flags.writeResults === true) {
    writeFileSync(
      RESULTS_FILE,
      resultsMarkdown({
        ...report,
        commit: currentCommit(fileURLToPath(new URL('.', import.meta.url))),
        seconds: (performance.now() - started) / 1000,
        failed: ran.flatMap((r) => (r.error === null ? [] : [{ name: r.name, error: r.error }])),
      }),
    );
    ctx.log(`results written to ${RESULTS_FILE}`);
  }
  return ran.some((r) => r.error) ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
