/**
 * The shape the code keeps (src/README.md): file sizes, the floor rules of src/floors.cjs (shown to reject an
 * upward import and a cycle), protocol versions named only in protocols/, and a README that is a front door.
 */
import t from 'tap';
import { CATALOG } from '../protocols/catalog.js';
import { NO_WIRE_FORM } from '../protocols/unsupported.js';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = process.cwd();
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');

function sources(dir: string, name = /\.tsx?$/): string[] {
  return (
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && name.test(e.name))
      .map((e) => relative(root, join(e.parentPath, e.name)))
      // Written at build from the served OpenAPI document (src/console/web/generate-api.mjs), not committed.
      .filter((f) => !f.startsWith('src/console/web/src/generated/'))
  );
}
const lines = (file: string) => readFileSync(join(root, file), 'utf8').split('\n').length - 1;

t.test('no file of src/ or protocols/ is longer than 400 lines; the actor and the store aggregate stay small', async (t) => {
  // Code of every kind: TypeScript, the console's build scripts and its stylesheets.
  const code = /\.(tsx?|[cm]?js|css)$/;
  const long = [...sources('src', code), ...sources('protocols', code)].filter((f) => lines(f) > 400);
  t.strictSame(long, [], 'files over 400 lines');
  t.ok(lines('src/devices/actor.ts') <= 250, 'src/devices/actor.ts at most 250 lines');
  t.ok(lines('src/store/types.ts') <= 150, 'src/store/types.ts at most 150 lines');
  t.ok(lines('README.md') <= 700, 'README.md at most 700 lines');
});

t.test('protocol versions are named only in protocols/ and the simulator', async (t) => {
  const named = sources('src')
    .filter((f) => !f.startsWith('src/simulator/'))
    .filter((f) => /['"][23]\.0\.0['"]/.test(readFileSync(join(root, f), 'utf8')));
  t.strictSame(named, []);
});

t.test('the floor rules hold for the tree', async (t) => {
  const { stdout } = await run(depcruise, ['--config', 'src/floors.cjs', '--output-type', 'json', 'src', 'protocols'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = JSON.parse(stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  t.strictSame(report.summary.violations, []);
});

t.test('the floor rules reject an upward import, a door importing a door, and a cycle', async (t) => {
  const dir = t.testdir({});
  copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  mkdirSync(join(dir, 'src', 'views'), { recursive: true });
  mkdirSync(join(dir, 'src', 'api'), { recursive: true });
  mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
  mkdirSync(join(dir, 'protocols'), { recursive: true });
  copyFileSync(join(root, 'src', 'floors.cjs'), join(dir, 'src', 'floors.cjs'));
  writeFileSync(join(dir, 'src', 'views', 'a.ts'), "import { b } from '../api/b.js';\nexport const a = b;\n");
  writeFileSync(join(dir, 'src', 'api', 'b.ts'), 'export const b = 1;\n');
  writeFileSync(
    join(dir, 'src', 'cli', 'c.ts'),
    "import { b } from '../api/b.js';\nimport { d } from './d.js';\nexport const c = b + d;\n",
  );
  writeFileSync(join(dir, 'src', 'cli', 'd.ts'), "import { c } from './c.js';\nexport const d = 1;\nexport const e = () => c;\n");
  writeFileSync(join(dir, 'protocols', 'p.ts'), 'export const p = 1;\n');
  const result = await run(depcruise, ['--config', 'src/floors.cjs', '--output-type', 'json', 'src', 'protocols'], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
  const report = JSON.parse(result.stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  const found = report.summary.violations.map((v) => `${v.rule.name} ${v.from} -> ${v.to}`).sort();
  t.ok(found.includes('floor-views src/views/a.ts -> src/api/b.ts'), 'a domain module may not import a door');
  t.ok(found.includes('floor-cli src/cli/c.ts -> src/api/b.ts'), 'a door may not import another door');
  t.ok(
    found.some((f) => f.startsWith('no-cycle src/cli/')),
    'a cycle between two files is refused',
  );
});

t.test("the README's preset-support sentence says what the catalog does", async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const sentence =
    /A preset outside the terminal's known protocol version \(the preset's `versions`\) is refused: 422 `COMMAND_NOT_SUPPORTED`\. One the version lists but the dialect cannot express \(on v3: ([^)]*)\)/.exec(
      readme,
    );
  t.ok(sentence, 'the sentence is there');
  const listed = [...(sentence?.[1] ?? '').matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
  // Presets v3 lists in `versions` but cannot put on the wire: queued (201) and failed with the reason.
  const v3 = CATALOG.filter((p) => p.versions.includes(3) && p.id in NO_WIRE_FORM[3])
    .map((p) => p.id)
    .sort();
  t.same(listed, v3, "the v3 list is the catalog's");
  // On v2 every preset without a wire form is outside v2's `versions`, so it is refused with 422, as the sentence says.
  t.same(
    CATALOG.filter((p) => p.versions.includes(2) && p.id in NO_WIRE_FORM[2]).map((p) => p.id),
    [],
    'no v2 preset is both listed and without a wire form',
  );
});
