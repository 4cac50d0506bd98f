// Bytes on the wire that are not UTF-8 text, made by the simulator on its own (it imports nothing of
// protocols/ or src/, so a gateway bug cannot hide): GBK names of a Simplified Chinese terminal
// [PUSH-v2 §2.6] and packed (`ContentType=tgz`) uploads [PUSH-v2 §6.4].

import { gzipSync } from 'node:zlib';

/** Character set of the terminal's names by `language` [PUSH-v2 §2.6]: 83 → GBK, else UTF-8. */
export type SimCharset = 'utf-8' | 'gbk';

export const charsetOfLanguage = (language: string): SimCharset => (language === '83' ? 'gbk' : 'utf-8');

let gbkTable: Map<string, number> | undefined;

/** Character → GBK double-byte code, built once by decoding every double-byte code (Node encodes no GBK). */
function gbk(): Map<string, number> {
  if (gbkTable !== undefined) return gbkTable;
  const decoder = new TextDecoder('gbk', { fatal: true });
  const table = new Map<string, number>();
  const pair = new Uint8Array(2);
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) {
      if (trail === 0x7f) continue;
      pair[0] = lead;
      pair[1] = trail;
      let ch: string;
      try {
        ch = decoder.decode(pair);
      } catch {
        continue;
      }
      if (ch.length === 1 && !table.has(ch)) table.set(ch, (lead << 8) | trail);
    }
  }
  gbkTable = table;
  return table;
}

/** Text as bytes of `charset`; a character GBK lacks becomes `?`. */
export function encodeText(text: string, charset: SimCharset): Buffer {
  if (charset === 'utf-8') return Buffer.from(text, 'utf8');
  const table = gbk();
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x80) out.push(code);
    else {
      const pair = table.get(ch);
      if (pair === undefined) out.push(0x3f);
      else out.push(pair >> 8, pair & 0xff);
    }
  }
  return Buffer.from(out);
}

export function decodeText(bytes: Buffer, charset: SimCharset): string {
  return charset === 'utf-8' ? bytes.toString('utf8') : new TextDecoder('gbk').decode(bytes);
}

/** A gzip-compressed ustar archive of the given files, in order (`ContentType=tgz`) [PUSH-v2 §6.4]. */
export function tgzOf(files: Readonly<Record<string, Buffer | string>>): Buffer {
  const blocks: Buffer[] = [];
  for (const [fileName, data] of Object.entries(files)) {
    const content = typeof data === 'string' ? Buffer.from(data) : data;
    const header = Buffer.alloc(512);
    header.write(fileName.slice(0, 99), 0);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\u000000', 257);
    let sum = 0;
    for (const b of header) sum += b;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
}
