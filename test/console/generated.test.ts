/**
 * The console's API types and presets (src/console/web/src/generated/, written at build by
 * src/console/web/generate-api.mjs from the document the compiled app builds) are what a running gateway's
 * GET /api/openapi.json says: generated from the served document, they are the files on disk.
 * Needs the generated files (`npm test` and `npm run build` write them: node src/console/web/build.mjs).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { startApp } from '../helpers/app.js';

interface Generator {
  readonly GENERATED: string;
  generatedFiles(doc: unknown): Promise<Record<string, string>>;
}

// Plain Node ESM outside any tsconfig: loaded by URL, typed by the interface above.
const generator = (await import(pathToFileURL(join(process.cwd(), 'src', 'console', 'web', 'generate-api.mjs')).href)) as Generator;

t.test('the generated types and presets are those of the served document', async (t) => {
  const { url } = await startApp(t);
  const served: unknown = await (await fetch(`${url}/api/openapi.json`)).json();
  const files = await generator.generatedFiles(served);
  t.strictSame(Object.keys(files).sort(), ['api.d.ts', 'events.ts', 'presets.ts']);
  const events = (served as { paths: Record<string, unknown> }).paths['/api/webhooks'];
  t.ok(events, 'the document has POST /api/webhooks');
  t.match(
    files['events.ts'],
    /WEBHOOK_EVENTS = \["device\.online",.*"attendance\.recorded",.*"door\.event",/,
    'the event types a webhook takes',
  );
  for (const [name, text] of Object.entries(files)) {
    const onDisk = await readFile(join(generator.GENERATED, name), 'utf8').catch(() => null);
    t.ok(onDisk !== null && onDisk === text, `${name} is generated from the served document (run \`node src/console/web/build.mjs\`)`);
  }
});
