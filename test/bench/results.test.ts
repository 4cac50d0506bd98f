// The RESULTS.md writer of `npm run bench -- --write-results`: header, table, notes, and a bound for
// each missed target (formatting only; nothing here runs a benchmark).
import t from 'tap';
import { figure } from './lib/figures.js';
import { BOUNDS, resultsMarkdown, type RunSummary } from './lib/results.js';

const run = (figures: RunSummary['figures'], failed: RunSummary['failed'] = []): RunSummary => ({
  date: '2026-11-28T10:00:00.000Z',
  machine: { cpu: 'AMD EPYC', cores: 2, memoryGiB: 24, node: 'v20.20.2', platform: 'linux x64' },
  commit: 'abc1234',
  command: 'npm run bench -- --write-results',
  generatorDetail: 'wrk, 2 threads',
  store: 'sqlite',
  engine: 'uws',
  rounds: 3,
  seconds: 385.6,
  figures,
  failed,
});

t.test('header, table and the bound of each missed target', async (t) => {
  const md = resultsMarkdown(
    run([
      figure('poll', 'idle getrequest', 78731, 'req/s', {
        baseline: 100215,
        target: { on: 'ratio', goal: { atLeast: 0.5 }, text: 'ratio ≥ 0.5' },
      }),
      figure('fanout', '10,000-user import held by all 20 terminals', 31.6, 's', {
        target: { on: 'value', goal: { atMost: 30 }, text: '≤ 30 s' },
        note: '20 terminals',
      }),
    ]),
  );
  t.match(md, /^# Benchmark results\n/);
  t.match(md, /\n- Date: 2026-11-28\n/);
  t.match(md, /\n- Machine: AMD EPYC, 2 cores, 24 GiB, Node v20\.20\.2, linux x64\n/);
  t.match(md, /\n- Commit: abc1234\n/);
  t.match(md, /\(386 s\)/);
  t.match(md, /\| poll \| idle getrequest \| 78,731 req\/s \| 100,215 req\/s \| 0\.786 \| ratio ≥ 0\.5 \| yes \|/);
  t.match(md, /\| fanout \| 10,000-user import held by all 20 terminals \| 31\.6 s \| — \| — \| ≤ 30 s \| no \|/);
  t.match(md, /## Notes\n\n- fanout \/ 10,000-user import held by all 20 terminals: 20 terminals\n/);
  const fanout = BOUNDS.find((b) => b.scenario === 'fanout');
  t.ok(fanout);
  t.ok(
    md.includes(`- **fanout: 10,000-user import held by all 20 terminals** (target ≤ 30 s): ${fanout?.text}`),
    'the bound of the missed target',
  );
  t.notMatch(md, /\*\*poll/, 'no bound for a met target');
  t.ok(md.endsWith('\n') && !md.endsWith('\n\n'));
});

t.test('a missed target without a known bound, failed scenarios, no sections when nothing applies', async (t) => {
  const md = resultsMarkdown(
    run(
      [
        figure('codec', 'v2 decoder', 1, 'records/s', {
          baseline: 10,
          target: { on: 'ratio', goal: { atLeast: 0.5 }, text: 'ratio ≥ 0.5' },
        }),
      ],
      [{ name: 'mqtt', error: 'boom' }],
    ),
  );
  t.match(md, /- \*\*codec: v2 decoder\*\* \(target ratio ≥ 0\.5\): not analysed yet\./);
  t.match(md, /## Scenarios that failed\n\n- mqtt: boom\n/);
  t.notMatch(md, /## Notes/);
  const clean = resultsMarkdown(run([figure('codec', 'ATTLOG upload', 5, 'records/s')]));
  t.notMatch(clean, /## (Notes|Scenarios that failed|What bounds)/);
});
