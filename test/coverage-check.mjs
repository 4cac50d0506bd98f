// Enforces the coverage floor that tap 21 cannot express (see .taprc).
// Lines below the floor fail `npm test`. Raise the floor as coverage grows; never lower it silently.
import { readFileSync } from 'node:fs';

const FLOOR = { lines: 80, statements: 80, functions: 70, branches: 70 };
const summary = JSON.parse(readFileSync(new URL('../.tap/report/coverage-summary.json', import.meta.url), 'utf8')).total;
const failures = Object.entries(FLOOR).filter(([k, min]) => !(summary[k]?.pct >= min));
for (const [k, min] of Object.entries(FLOOR)) console.log(`coverage ${k}: ${summary[k]?.pct}% (floor ${min}%)`);
if (failures.length > 0) {
  console.error(`coverage below the floor: ${failures.map(([k, min]) => `${k} ${summary[k]?.pct}% < ${min}%`).join(', ')}`);
  process.exit(1);
}
