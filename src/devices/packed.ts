/**
 * Packed uploads [PUSH-v2 §6.4]: `POST /iclock/cdata?table=OPERLOG&ContentType=tgz` carries a gzip-compressed
 * tar of the text records a plain upload would carry (servers announcing PushProtVer ≥ 2.2.14). Unpacked
 * here, outside protocols/ (which stays pure), and handed to the codec as if sent plain.
 *
 * The one door of `tar-stream`. Limits against decompression bombs: the compressed size, the expanded
 * size (enforced by zlib while inflating, so a bomb never fills memory) and the number of tar entries.
 */
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { extract } from 'tar-stream';
import { BioGateError } from '../errors.js';

const gunzipAsync = promisify(gunzip);

export interface PackedLimits {
  /** largest packed body, bytes */
  readonly compressedBytes: number;
  /** largest unpacked tar (and so the records), bytes */
  readonly expandedBytes: number;
  /** most tar entries */
  readonly entries: number;
}

export const PACKED_LIMITS: PackedLimits = { compressedBytes: 8 * 1024 * 1024, expandedBytes: 32 * 1024 * 1024, entries: 1024 };

/** Whether a request is a packed upload (`ContentType=tgz`, any case, on `cdata`). */
export function isPackedUpload(path: string, query: Readonly<Record<string, string>>): boolean {
  if (!/(^|\/)cdata$/i.test(path)) return false;
  return Object.entries(query).some(([k, v]) => k.toLowerCase() === 'contenttype' && v.toLowerCase() === 'tgz');
}

/**
 * The text of every regular file of the archive, in archive order, each ending in LF.
 * @throws BioGateError PAYLOAD_TOO_LARGE past a limit, BAD_REQUEST for a body that is not a tgz
 */
export async function unpackTgz(body: Uint8Array, limits: PackedLimits = PACKED_LIMITS): Promise<Buffer> {
  if (body.length > limits.compressedBytes)
    throw new BioGateError('PAYLOAD_TOO_LARGE', `packed upload larger than ${limits.compressedBytes} bytes`);
  let tar: Buffer;
  try {
    tar = await gunzipAsync(body, { maxOutputLength: limits.expandedBytes });
  } catch (cause) {
    if ((cause as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new BioGateError('PAYLOAD_TOO_LARGE', `packed upload expands past ${limits.expandedBytes} bytes`, { cause });
    }
    throw new BioGateError('BAD_REQUEST', 'packed upload is not gzip data', { cause });
  }
  return untar(tar, limits);
}

function untar(tar: Buffer, limits: PackedLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let entries = 0;
    let failed = false;
    const ex = extract();
    const fail = (err: BioGateError): void => {
      if (failed) return;
      failed = true;
      ex.destroy();
      reject(err);
    };
    ex.on('entry', (header, stream, next) => {
      if (++entries > limits.entries) {
        stream.resume();
        fail(new BioGateError('PAYLOAD_TOO_LARGE', `packed upload has more than ${limits.entries} entries`));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => {
        if (header.type === 'file' && Buffer.isBuffer(chunk)) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (chunks.length > 0) {
          const text = Buffer.concat(chunks);
          parts.push(text);
          // records of consecutive files never run together
          if (text[text.length - 1] !== 0x0a) parts.push(Buffer.from('\n'));
        }
        next();
      });
      stream.on('error', (cause: unknown) => fail(new BioGateError('BAD_REQUEST', 'packed upload is not a tar archive', { cause })));
    });
    ex.on('finish', () => {
      if (!failed) resolve(Buffer.concat(parts));
    });
    ex.on('error', (cause: unknown) => fail(new BioGateError('BAD_REQUEST', 'packed upload is not a tar archive', { cause })));
    ex.end(tar);
  });
}
