/**
 * The console's built files (src/console/web, bundled by esbuild into dist/console/ at `npm run build`),
 * read once into memory with their content type and a strong ETag. The bundle is a few files of
 * some tens of KB, so holding them is cheaper than a file read per request.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** Strong validator (RFC 9110 §8.8.3): a hash of the bytes, quoted. */
  readonly etag: string;
}

/** Only these kinds are served; anything else the build might leave (sourcemaps, say) stays private. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Where the bundle is: dist/console/ seen from the built server (dist/src/console/assets.js), or
 * from the source tree that tap runs (src/console/assets.ts → dist/console/). Undefined when
 * neither exists (not built yet).
 */
export function findConsoleDir(): string | undefined {
  const candidates = [new URL('../../console/', import.meta.url), new URL('../../dist/console/', import.meta.url)].map((u) =>
    fileURLToPath(u),
  );
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** Every servable file of the directory (not recursive: the build writes a flat folder), by file name. */
export async function loadAssets(dir: string): Promise<ReadonlyMap<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const name of await readdir(dir)) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const body = await readFile(join(dir, name));
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return assets;
}
