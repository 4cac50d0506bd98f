/**
 * Loads uWebSockets.js and proves the native binary is there. The package falls
 * back to a JavaScript implementation that does not work for us, and its binaries
 * exist for Node 16–20 only (DESIGN.md "Dependencies").
 */
import { createRequire } from 'node:module';
import type * as UWS from 'uWebSockets.js';

export type Uws = typeof UWS;

export class UwsUnavailableError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      `uWebSockets.js native binary did not load (${reason}). BioGate needs Node 20 on linux/darwin/win32 ` +
        `x64 or arm64; this is Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform}/${process.arch}. ` +
        `Reinstall with "npm ci" on Node 20.`,
      options,
    );
    this.name = 'UwsUnavailableError';
  }
}

let cached: Uws | undefined;

export function loadUws(): Uws {
  if (cached) return cached;
  if (/^(true|1)$/i.test(process.env['UWS_USE_FALLBACK'] ?? '')) throw new UwsUnavailableError('UWS_USE_FALLBACK is set');
  let mod: Uws;
  try {
    mod = createRequire(import.meta.url)('uWebSockets.js') as Uws;
  } catch (cause) {
    throw new UwsUnavailableError((cause as Error).message.split('\n')[0] ?? 'load failed', { cause });
  }
  if (typeof (mod as { getParts?: unknown }).getParts !== 'function') throw new UwsUnavailableError('getParts is missing: the JavaScript fallback was loaded');
  cached = mod;
  return mod;
}
