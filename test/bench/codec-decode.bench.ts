// Decoder throughput: a 10,000-line ATTLOG upload and a 1,000-template BIODATA upload, against a bare
// split('\n') + split('\t') loop over the same bytes measured in the same run.
// Run: npx tsc -p tsconfig.json && node dist/test/bench/codec-decode.bench.js
import { pathToFileURL } from 'node:url';
import type { WireRequest } from '../../protocols/codec.js';
import { codecFor, countRecords } from '../../protocols/index.js';
import { compare, report, type CompareOptions, type Comparison } from './harness.js';

const ATTLOG_LINES = 10_000;
const TEMPLATES = 1_000;
const TEMPLATE_BYTES = 1_200;

const pad = (n: number): string => String(n).padStart(2, '0');

function attlogBody(): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < ATTLOG_LINES; i++) {
    const s = i % 86400;
    lines.push(
      `${1000 + (i % 500)}\t2026-02-03 ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}\t${i % 2}\t1\t0\t0\t0`,
    );
  }
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

function biodataBody(): Uint8Array {
  const b64 = Buffer.alloc(TEMPLATE_BYTES, 7).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < TEMPLATES; i++) {
    lines.push(
      `BIODATA Pin=${1 + i}\tNo=${i % 10}\tIndex=0\tValid=1\tDuress=0\tType=${i % 2 === 0 ? 1 : 9}\tMajorVer=12\tMinorVer=0\tFormat=0\tTmp=${b64}`,
    );
  }
  return new TextEncoder().encode(lines.join('\r\n'));
}

const request = (table: string, body: Uint8Array): WireRequest => ({
  method: 'POST',
  path: '/iclock/cdata',
  query: { SN: 'BENCH0001', table, Stamp: '9999' },
  headers: {},
  body,
});

/** The floor: decode the bytes and split them into fields, nothing else. */
function bareSplit(body: Uint8Array): number {
  let fields = 0;
  for (const line of new TextDecoder().decode(body).split('\n')) fields += line.split('\t').length;
  return fields;
}

/** `options`: fewer/shorter rounds for the harness's --smoke (npm run bench). */
export function run(options: CompareOptions = {}): Comparison[] {
  const codec = codecFor('2.0.0');
  const cases: Array<[string, string, Uint8Array, number]> = [
    ['ATTLOG upload, 10,000 lines', 'ATTLOG', attlogBody(), ATTLOG_LINES],
    ['BIODATA upload, 1,000 templates', 'BIODATA', biodataBody(), TEMPLATES],
  ];
  return cases.map(([title, table, body, records]) => {
    const req = request(table, body);
    const decoded = codec.decode(req);
    if (countRecords(decoded.events) !== records || decoded.rejected !== 0)
      throw new Error(`${title}: decoded ${countRecords(decoded.events)} records`);
    return compare(
      title,
      { name: "split('\\n') + split('\\t')", units: records, run: () => bareSplit(body) },
      { name: 'codecFor(2.0.0).decode', units: records, run: () => codec.decode(req) },
      options,
    );
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const result of run()) console.log(report(result));
}
