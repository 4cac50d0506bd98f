// `npm run build` (and `npm test`) step, after `tsc -p tsconfig.json`: generates the console's API types and
// presets from the OpenAPI document (generate-api.mjs), bundles the console (src/console/web/src, Preact + TSX)
// with esbuild into dist/console/, next to its page and stylesheet, and prints the gzip size of what a
// browser downloads. Everything the console needs is in that folder: no CDN, no external request.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { generate } from './generate-api.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '..', '..', 'dist', 'console');
/** The console's budget: under 150 KB of gzipped JavaScript. The build fails beyond it. */
const JS_BUDGET = 150 * 1024;

await generate();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src', 'main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'eof',
  logLevel: 'warning',
  // src/csv-table.ts (shared with the CLI) imports csv-parse's Node build; the console gets the browser build.
  alias: { 'csv-parse/sync': 'csv-parse/browser/esm/sync' },
});
// app.css @imports the stylesheets of css/: one file in, one file out (not minified: small, and readable in devtools).
await build({ entryPoints: [join(here, 'app.css')], outfile: join(out, 'app.css'), bundle: true, logLevel: 'warning' });
for (const file of ['index.html', 'favicon.svg']) copyFileSync(join(here, file), join(out, file));
// Preact's MIT licence travels with the bundle that contains it.
copyFileSync(join(dirname(createRequire(import.meta.url).resolve('preact/package.json')), 'LICENSE'), join(out, 'preact-LICENSE.txt'));

let js = 0;
const sizes = readdirSync(out).map((name) => {
  const bytes = readFileSync(join(out, name));
  const gz = gzipSync(bytes, { level: 9 }).byteLength;
  if (name.endsWith('.js')) js += gz;
  return `${name} ${(bytes.byteLength / 1024).toFixed(1)} KB (gzip ${(gz / 1024).toFixed(1)} KB)`;
});
process.stdout.write(`console built in ${out}: ${sizes.join(', ')}\n`);
if (js > JS_BUDGET) {
  process.stderr.write(`console JavaScript is ${(js / 1024).toFixed(1)} KB gzipped, over the ${JS_BUDGET / 1024} KB budget\n`);
  process.exit(1);
}
