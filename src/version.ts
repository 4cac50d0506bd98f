/** The package version: `biogate --version`, the OpenAPI document's `info.version`. */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  // src/ (tests) and dist/src/ (built) sit at different depths below package.json.
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'biogate' && pkg.version) return pkg.version;
    } catch {
      // not at this depth
    }
  }
  return '0.0.0';
}
