/**
 * Firmware for `firmware-upgrade` [COMMANDS §4.22]: the device asks BioGate for
 * `/iclock/file?SN=…&url=…`, and BioGate downloads the HTTPS URL itself (so the terminal never
 * needs TLS), checks the size and MD5 the command named, and serves it. Downloads are shared by
 * every device asking for the same file and kept in a small in-memory cache, base64-encoded once
 * (method 1 content [COMMANDS §4.22]): every device is served the same string, not its own copy.
 * Every failure on this path (refused or malformed redirects, TLS, timeouts, size, MD5) is a
 * FirmwareError that fails the command; none may escape into the process.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { get } from 'node:https';
import { rootCertificates } from 'node:tls';

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

const CACHED_FILES = 2;
const MAX_REDIRECTS = 3;

export interface FirmwareCache {
  /** The verified file; rejects with FirmwareError (only) when it cannot be had. */
  fetch(request: FirmwareRequest): Promise<FirmwareFile>;
}

export function createFirmwareCache(options: FirmwareOptions): FirmwareCache {
  const ca = options.caFile === null ? undefined : [...rootCertificates, readFileSync(options.caFile, 'utf8')];
  const timeoutMs = options.timeoutMs ?? 300_000;
  const files = new Map<string, Promise<FirmwareFile>>();

  function download(url: string, limit: number, redirects: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let req: ClientRequest;
      try {
        req = get(url, { ...(ca ? { ca } : {}), timeout: timeoutMs }, (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (status >= 300 && status < 400 && location !== undefined) {
            res.resume();
            const next = redirectTarget(location, url);
            if (!next)
              return reject(new FirmwareError(`firmware download: malformed redirect location ${JSON.stringify(location.slice(0, 200))}`));
            if (next.protocol !== 'https:' || redirects >= MAX_REDIRECTS)
              return reject(new FirmwareError(`firmware download: refused redirect to ${next.origin}`));
            return resolve(download(next.href, limit, redirects + 1));
          }
          if (status !== 200) {
            res.resume();
            return reject(new FirmwareError(`firmware download: HTTP ${status}`));
          }
          const chunks: Buffer[] = [];
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > limit) {
              req.destroy(new FirmwareError(`firmware download: larger than the ${limit} bytes announced`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', (err) => reject(asFirmwareError(err)));
        });
      } catch (err) {
        // get() throws synchronously on an URL it cannot use.
        return reject(asFirmwareError(err));
      }
      req.on('timeout', () => req.destroy(new FirmwareError(`firmware download: no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(asFirmwareError(err)));
    });
  }

  async function verified(r: FirmwareRequest): Promise<FirmwareFile> {
    if (r.size > options.maxBytes) throw new FirmwareError(`firmware of ${r.size} bytes exceeds BIOGATE_FIRMWARE_MAX_MB`);
    let file: Buffer;
    try {
      file = await download(r.url, r.size, 0);
    } catch (err) {
      throw asFirmwareError(err);
    }
    if (file.length !== r.size) throw new FirmwareError(`firmware size mismatch: ${file.length} bytes, command says ${r.size}`);
    const md5 = createHash('md5').update(file).digest('hex');
    if (md5 !== r.checksum.toLowerCase())
      throw new FirmwareError(`firmware checksum mismatch: MD5 ${md5}, command says ${r.checksum.toLowerCase()}`);
    // Encoded once here; the raw bytes are dropped and every device gets this one string.
    return { size: file.length, base64: file.toString('base64') };
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

/** The absolute redirect target, or undefined when the Location header is not a usable URL. */
function redirectTarget(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

function asFirmwareError(err: unknown): FirmwareError {
  if (err instanceof FirmwareError) return err;
  return new FirmwareError(`firmware download: ${err instanceof Error ? err.message : String(err)}`);
}
