/**
 * Loads uWebSockets.js and proves the native binary is there. The package falls
 * back to a JavaScript implementation that does not work for us, and its binaries
 * exist for Node 16–20 only (DESIGN.md "Dependencies"). Loaded on demand (createRequire at
 * call time, type-only imports elsewhere), so a process on a Node where the binary cannot
 * load still starts, on the node:http engine.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as UWS from 'uWebSockets.js';

export type Uws = typeof UWS;

export class UwsUnavailableError extends Error {
  /** Why, in a few words (the auto selection logs it). */
  readonly reason: string;
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `uWebSockets.js native binary did not load (${reason}), and BIOGATE_HTTP_ENGINE=uws asks for it. Its binaries need Node 20 ` +
        `on linux/darwin/win32 x64 or arm64 (glibc 2.36 or older); this is Node ${process.versions.node} (ABI ${process.versions.modules}) on ` +
        `${process.platform}/${process.arch}. Use BIOGATE_HTTP_ENGINE=auto or node (the node:http engine), or reinstall with "npm ci" on Node 20.`,
      options,
    );
    this.name = 'UwsUnavailableError';
    this.reason = reason;
  }
}

let cached: Uws | undefined;

export function loadUws(): Uws {
  // Checked first, also once loaded: UWS_USE_FALLBACK=1 stands for a Node where the binary cannot load.
  if (/^(true|1)$/i.test(process.env['UWS_USE_FALLBACK'] ?? '')) throw new UwsUnavailableError('UWS_USE_FALLBACK is set');
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  let mod: Uws;
  try {
    // The package looks for binaries/uws_<platform>_<arch>_<ABI>.node and, when there is none, prints
    // a warning to stderr and loads its JavaScript fallback. Where no binary exists (every Node after
    // 20), say so without that noise: `auto` then starts on node:http with one clean log line.
    const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
    if (!existsSync(join(dirname(require.resolve('uWebSockets.js')), '..', 'binaries', binary))) {
      throw new UwsUnavailableError(
        `no native binary for Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform}/${process.arch}`,
      );
    }
    mod = require('uWebSockets.js') as Uws;
  } catch (cause) {
    if (cause instanceof UwsUnavailableError) throw cause;
    throw new UwsUnavailableError((cause as Error).message.split('\n')[0] ?? 'load failed', { cause });
  }
  if (typeof (mod as { getParts?: unknown }).getParts !== 'function')
    throw new UwsUnavailableError('getParts is missing: the JavaScript fallback was loaded');
  cached = mod;
  return mod;
}
