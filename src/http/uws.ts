/**
 * Loads uWebSockets.js and proves the native binary is there. BioGate ships two builds of it (package.json), tried
 * in order, the first that loads wins:
 *
 * - `uWebSockets.js` (v20.30, repackaged by trufflesuite): binaries for Node 16–20, any glibc this project runs on.
 *   When its binary is missing it prints a warning and loads a JavaScript fallback that does not work for us,
 *   so the binary's file is checked first.
 * - `uws-current` (v20.57, repackaged by btc-vision): binaries for Node 20, 22, 24 and 25, linked against glibc 2.38
 *   or newer (Debian 13, Ubuntu 24.04; the container image's base). It throws when its binary cannot load.
 *
 * Loaded on demand (createRequire at call time, type-only imports elsewhere), so a process on a Node or libc where
 * neither binary loads still starts, on the node:http engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as UWS from 'uWebSockets.js';

export type Uws = typeof UWS;

export class UwsUnavailableError extends Error {
  /** Why, in a few words (the auto selection logs it). */
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `uWebSockets.js native binary did not load (${reason}), and BIOGATE_HTTP_ENGINE=uws asks for it. Its binaries need ${UWS_PLATFORMS}. ` +
        `This is Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform}/${process.arch}. ` +
        'Use BIOGATE_HTTP_ENGINE=auto or node (the node:http engine), or reinstall with "npm ci" on a supported Node.',
      options,
    );
    this.name = 'UwsUnavailableError';
    this.reason = reason;
  }
}

/** Where the uWebSockets.js engine runs, for error messages and `biogate doctor`. */
export const UWS_PLATFORMS =
  'linux/darwin/win32 on x64 or arm64 with Node 20 (any glibc), or Node 22, 24 or 25 with glibc 2.38 or newer (such as Debian 13)';

/** A shipped build: its package name, and where its binaries lie relative to the package's main file. */
interface Build {
  readonly pkg: string;
  readonly binaries: string;
}
const BUILDS: readonly Build[] = [
  { pkg: 'uWebSockets.js', binaries: join('..', 'binaries') },
  { pkg: 'uws-current', binaries: '.' },
];

/** The build that loaded: its package and uWebSockets.js version (the startup log line and doctor name it). */
export interface LoadedUws {
  readonly uws: Uws;
  readonly pkg: string;
  readonly version: string;
}

let cached: LoadedUws | undefined;

export function loadUws(): Uws {
  return loadUwsBuild().uws;
}

export function loadUwsBuild(): LoadedUws {
  // Checked first, also once loaded: UWS_USE_FALLBACK=1 stands for a Node where no binary can load.
  if (/^(true|1)$/i.test(process.env['UWS_USE_FALLBACK'] ?? '')) throw new UwsUnavailableError('UWS_USE_FALLBACK is set');
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const reasons: string[] = [];
  let lastCause: unknown;
  for (const build of BUILDS) {
    let main: string;
    try {
      main = require.resolve(build.pkg);
    } catch (cause) {
      reasons.push(`${build.pkg}: not installed`);
      lastCause = cause;
      continue;
    }
    if (!existsSync(join(dirname(main), build.binaries, binary))) {
      reasons.push(
        `${build.pkg}: no native binary for Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform}/${process.arch}`,
      );
      continue;
    }
    let mod: Uws;
    try {
      mod = require(build.pkg) as Uws;
    } catch (cause) {
      // The dynamic linker's complaint (a missing GLIBC_2.38, say) is the message's last line.
      const lines = (cause as Error).message.split('\n').filter((l) => l.trim() !== '');
      reasons.push(`${build.pkg}: ${(lines[lines.length - 1] ?? 'load failed').replace(/^Error: /, '').trim()}`);
      lastCause = cause;
      continue;
    }
    if (typeof (mod as { getParts?: unknown }).getParts !== 'function') {
      reasons.push(`${build.pkg}: getParts is missing (the JavaScript fallback was loaded)`);
      continue;
    }
    cached = { uws: mod, pkg: build.pkg, version: packageVersion(dirname(main)) };
    return cached;
  }
  throw new UwsUnavailableError(reasons.join('; '), lastCause === undefined ? undefined : { cause: lastCause });
}

/** The version in the nearest package.json at or above `dir` ("unknown" if none is readable). */
function packageVersion(dir: string): string {
  for (let d = dir, i = 0; i < 3; d = dirname(d), i++) {
    const file = join(d, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const version = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
      if (typeof version === 'string') return version;
    } catch {
      // an unreadable package.json: keep looking up
    }
  }
  return 'unknown';
}
