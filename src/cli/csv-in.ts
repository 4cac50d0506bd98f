/**
 * Reading spreadsheets people really export: bytes → text (UTF-8, UTF-16 with a byte-order mark,
 * Windows-1252 when the bytes are not UTF-8, or what `--encoding` says), then text → rows with
 * src/csv-table.ts (shared with the console's import).
 */
import { CsvTableError, parseCsvTable as parseTable, type CsvTable } from '../csv-table.js';
import { decodeBytes, isKnownEncoding } from '../charset.js';
import { UsageError } from './args.js';

export interface DecodedText {
  readonly text: string;
  /** What was used, as the operator would name it (`utf-8`, `utf-16le`, `windows-1252`, …). */
  readonly encoding: string;
  /** True when the file did not say (no BOM, no --encoding) and the bytes decided. */
  readonly detected: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a file. With `forced`, that encoding (checked against what iconv-lite knows); else a
 * byte-order mark decides (UTF-8, UTF-16 LE/BE); else UTF-8 when the bytes are valid UTF-8 and
 * Windows-1252 when they are not — a spreadsheet saved as "CSV" on Windows, where `José` is
 * `4A 6F 73 E9`, which is never valid UTF-8 (today it would import as `Jos\ufffd`).
 */
export function decodeCsvBytes(bytes: Uint8Array, forced?: string): DecodedText {
  if (forced !== undefined) {
    const name = forced.trim().toLowerCase();
    if (!isKnownEncoding(name))
      throw new UsageError(`--encoding: unknown encoding "${forced}" (try utf-8, utf-16le, utf-16be, windows-1252 or latin1)`);
    return { text: decodeBytes(bytes, name).replace(/^\uFEFF/, ''), encoding: name, detected: false };
  }
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf)
    return { text: decodeBytes(bytes.subarray(3), 'utf-8'), encoding: 'utf-8', detected: false };
  if (b0 === 0xff && b1 === 0xfe) return { text: decodeBytes(bytes.subarray(2), 'utf-16le'), encoding: 'utf-16le', detected: false };
  if (b0 === 0xfe && b1 === 0xff) return { text: decodeBytes(bytes.subarray(2), 'utf-16be'), encoding: 'utf-16be', detected: false };
  // UTF-16 without a mark: ASCII text has a zero in every other byte, which neither UTF-8 nor
  // Windows-1252 text has (a spreadsheet never holds NUL).
  const half = utf16Without(bytes);
  if (half) return { text: decodeBytes(bytes, half), encoding: half, detected: true };
  try {
    return { text: utf8.decode(bytes), encoding: 'utf-8', detected: true };
  } catch {
    return { text: decodeBytes(bytes, 'windows-1252'), encoding: 'windows-1252', detected: true };
  }
}

function utf16Without(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(bytes.length - (bytes.length % 2), 512);
  if (n < 4) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero > pairs * 0.4 && evenZero === 0) return 'utf-16le';
  if (evenZero > pairs * 0.4 && oddZero === 0) return 'utf-16be';
  return undefined;
}

/** `parseCsvTable` of src/csv-table.ts, its refusals as the CLI's usage errors (exit 2, the message on stderr). */
export function parseCsvTable(text: string): CsvTable {
  try {
    return parseTable(text);
  } catch (err) {
    if (err instanceof CsvTableError) throw new UsageError(err.message);
    throw err;
  }
}
