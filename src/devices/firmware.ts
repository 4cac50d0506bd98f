/**
 * Firmware for `firmware-upgrade` [COMMANDS §4.22]: the device asks BioGate for
 * `/iclock/file?SN=…&url=…`, and BioGate downloads the HTTPS URL itself (so the terminal never
 * needs TLS), checks the size and MD5 the command named, and serves it base64 (method 1 content).
 *
 * Invariants:
 * - every hop (the URL and each redirect) goes through the address guard (src/net/address-guard.ts):
 *   a literal non-public host is refused before connecting, a name whose answer is non-public is
 *   refused when the socket connects; `allowPrivate` (BIOGATE_FIRMWARE_ALLOW_PRIVATE=on) lifts both;
 * - the body streams to a temporary file (mode 0600, removed on every path) while its size and MD5
 *   are computed; more bytes than the command's size abort the download; memory during a download
 *   is one chunk;
 * - at most MAX_DOWNLOADS downloads run at once; more wait their turn;
 * - a verified file is encoded once into one base64 string, shared by every device asking for it;
 *   at most CACHED_FILES are kept;
 * - errors name the failure, never the file's size or MD5 ("size did not match", "checksum did not
 *   match"): the caller may not learn what the URL holds;
 * - every failure on this path (guard, redirects, TLS, timeouts, size, MD5, disk) is a
 *   FirmwareError that fails the command; none escapes into the process.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { rootCertificates } from 'node:tls';
import { guardedLookup, literalProblem, PRIVATE_ADDRESS_CODE } from '../net/address-guard.js';

export interface FirmwareRequest {
  readonly url: string;
  /** MD5 of the file, hex */
  readonly checksum: string;
  /** bytes */
  readonly size: number;
}

export interface FirmwareOptions {
  /** PEM file of extra certificate authorities to trust for downloads (private firmware servers). */
  readonly caFile: string | null;
  /** Largest file accepted, bytes. */
  readonly maxBytes: number;
  /** Whole-download time limit, ms. */
  readonly timeoutMs?: number;
  /** Allow loopback, link-local and private addresses (BIOGATE_FIRMWARE_ALLOW_PRIVATE=on). */
  readonly allowPrivate: boolean;
}

/** A verified firmware file as devices are served it. */
export interface FirmwareFile {
  /** Size of the file in bytes (before encoding). */
  readonly size: number;
  /** The file, base64 [COMMANDS §4.22 method 1]; one shared copy per cached file. */
  readonly base64: string;
}

export class FirmwareError extends Error {
  override readonly name = 'FirmwareError';
}

export const FIRMWARE_PRIVATE_SETTING = 'BIOGATE_FIRMWARE_ALLOW_PRIVATE';
const CACHED_FILES = 2;
const MAX_DOWNLOADS = 2;
const MAX_REDIRECTS = 3;
/** Bytes read at a time when encoding; a multiple of 3, so the base64 pieces join without padding. */
const ENCODE_CHUNK = 3 * 1024 * 1024;

export interface FirmwareCache {
  /** The verified file; rejects with FirmwareError (only) when it cannot be had. */
  fetch(request: FirmwareRequest): Promise<FirmwareFile>;
}

export function createFirmwareCache(options: FirmwareOptions): FirmwareCache {
  const ca = options.caFile === null ? undefined : [...rootCertificates, readFileSync(options.caFile, 'utf8')];
  const timeoutMs = options.timeoutMs ?? 300_000;
  const lookup = options.allowPrivate ? undefined : guardedLookup(FIRMWARE_PRIVATE_SETTING);
  const files = new Map<string, Promise<FirmwareFile>>();
  const slots = limiter(MAX_DOWNLOADS);

  /** The response of a 200 for `url`, following at most MAX_REDIRECTS https:// redirects, each through the guard. */
  function open(url: URL, redirects: number): Promise<IncomingMessage> {
    if (!options.allowPrivate) {
      const problem = literalProblem(url, FIRMWARE_PRIVATE_SETTING);
      if (problem) return Promise.reject(new FirmwareError(`firmware download: refused: ${url.hostname} ${problem}`));
    }
    return new Promise<IncomingMessage>((resolve, reject) => {
      let req: ClientRequest;
      try {
        req = get(url, { ...(ca ? { ca } : {}), ...(lookup ? { lookup } : {}), timeout: timeoutMs }, (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (status >= 300 && status < 400 && location !== undefined) {
            res.resume();
            const next = redirectTarget(location, url);
            if (!next)
              return reject(new FirmwareError(`firmware download: malformed redirect location ${JSON.stringify(location.slice(0, 200))}`));
            if (next.protocol !== 'https:' || redirects >= MAX_REDIRECTS)
              return reject(new FirmwareError(`firmware download: refused redirect to ${next.origin}`));
            return resolve(open(next, redirects + 1));
          }
          if (status !== 200) {
            res.resume();
            return reject(new FirmwareError(`firmware download: HTTP ${status}`));
          }
          resolve(res);
        });
      } catch (err) {
        // get() throws synchronously on an URL it cannot use.
        return reject(asFirmwareError(err));
      }
      req.on('timeout', () => req.destroy(new FirmwareError(`firmware download: no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(asFirmwareError(err)));
    });
  }

  /** Streams the file to `path`; resolves with the MD5 (hex) once exactly `size` bytes arrived. */
  async function download(r: FirmwareRequest, path: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(r.url);
    } catch {
      throw new FirmwareError('firmware download: malformed url');
    }
    const res = await open(url, 0);
    const md5 = createHash('md5');
    let bytes = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > r.size) return done(new FirmwareError('firmware download: size did not match'));
        md5.update(chunk);
        done(null, chunk);
      },
    });
    const deadline = setTimeout(() => res.destroy(new FirmwareError(`firmware download: no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      await pipeline(res, measure, createWriteStream(path, { mode: 0o600 }));
    } finally {
      clearTimeout(deadline);
    }
    if (bytes !== r.size) throw new FirmwareError('firmware download: size did not match');
    return md5.digest('hex');
  }

  async function verified(r: FirmwareRequest): Promise<FirmwareFile> {
    if (r.size > options.maxBytes) throw new FirmwareError(`firmware of ${r.size} bytes exceeds BIOGATE_FIRMWARE_MAX_MB`);
    return slots(async () => {
      let dir: string | undefined;
      try {
        dir = await mkdtemp(join(tmpdir(), 'biogate-firmware-'));
        const path = join(dir, 'file');
        const md5 = await download(r, path);
        if (md5 !== r.checksum.toLowerCase()) throw new FirmwareError('firmware download: checksum did not match');
        return { size: r.size, base64: await base64Of(path) };
      } catch (err) {
        throw asFirmwareError(err);
      } finally {
        if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    });
  }

  return {
    fetch(r) {
      const key = `${r.url}\n${r.checksum.toLowerCase()}\n${r.size}`;
      let file = files.get(key);
      if (!file) {
        file = verified(r);
        files.set(key, file);
        // A failed download is not cached: the next request tries again.
        file.catch(() => files.delete(key));
        while (files.size > CACHED_FILES) files.delete(files.keys().next().value as string);
      }
      return file;
    },
  };
}

/** The file as one base64 string, read in pieces (never the whole raw file in memory); pieces are cut at multiples of 3 bytes so no padding falls inside. */
async function base64Of(path: string): Promise<string> {
  let text = '';
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: ENCODE_CHUNK })) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const whole = bytes.length - (bytes.length % 3);
    text += bytes.subarray(0, whole).toString('base64');
    carry = Buffer.from(bytes.subarray(whole));
  }
  return text + carry.toString('base64');
}

/** Runs at most `n` tasks at once; the others wait in order (a finishing task hands its slot to the next). */
function limiter(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running < n) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** The absolute redirect target, or undefined when the Location header is not a usable URL. */
function redirectTarget(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function asFirmwareError(err: unknown): FirmwareError {
  if (err instanceof FirmwareError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return new FirmwareError(code === PRIVATE_ADDRESS_CODE ? `firmware download: refused: ${message}` : `firmware download: ${message}`);
}
