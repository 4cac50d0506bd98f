// Reader for protocols/fixtures/*.http (format: shared fixtures README), plus helpers that turn a
// request section into a WireRequest and check `# assert:` lines against a reply body.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WireRequest } from '../../protocols/codec.js';

const here = dirname(fileURLToPath(import.meta.url));
// test/protocols → protocols/fixtures; compiled (dist/test/protocols) the fixtures stay in the source tree
export const FIXTURES =
  [join(here, '..', '..', 'protocols', 'fixtures'), join(here, '..', '..', '..', 'protocols', 'fixtures')].find((dir) => existsSync(dir)) ??
  join(here, '..', '..', 'protocols', 'fixtures');
const root = (): string => FIXTURES;

export interface Exchange {
  readonly request: Buffer;
  readonly response: Buffer;
}

export interface Fixture {
  readonly file: string;
  readonly header: Readonly<Record<string, string[]>>;
  readonly exchanges: readonly Exchange[];
}

const REQ = Buffer.from('\n### request\n');
const RESP = Buffer.from('\n### response\n');

export function fixtureFiles(version: 'v2' | 'v3'): string[] {
  return readdirSync(join(root(), version))
    .filter((f) => f.endsWith('.http'))
    .sort();
}

export function readFixture(version: 'v2' | 'v3', name: string): Fixture {
  const buf = readFileSync(join(root(), version, name));
  const header: Record<string, string[]> = {};
  let pos = 0;
  while (buf[pos] === 0x23 && buf[pos + 1] === 0x20) {
    const eol = buf.indexOf(0x0a, pos);
    const line = buf.subarray(pos + 2, eol).toString('utf8');
    const i = line.indexOf(': ');
    (header[line.slice(0, i)] ??= []).push(line.slice(i + 2));
    pos = eol + 1;
  }
  const rest = buf.subarray(pos, buf.length - 1);
  const sections: Buffer[] = [];
  let start = 0;
  let marker = RESP;
  for (;;) {
    const at = rest.indexOf(marker, start);
    if (at < 0) {
      sections.push(rest.subarray(start));
      break;
    }
    sections.push(rest.subarray(start, at));
    start = at + marker.length;
    marker = marker === RESP ? REQ : RESP;
  }
  const exchanges: Exchange[] = [];
  for (let i = 0; i < sections.length; i += 2) exchanges.push({ request: sections[i] as Buffer, response: sections[i + 1] as Buffer });
  return { file: name, header, exchanges };
}

export function splitHead(section: Buffer): { head: string[]; body: Buffer } {
  const at = section.indexOf('\n\n');
  if (at < 0) return { head: section.toString('utf8').split('\n'), body: Buffer.alloc(0) };
  return { head: section.subarray(0, at).toString('utf8').split('\n'), body: section.subarray(at + 2) };
}

/** A request section as the HTTP layer would hand it to a codec. */
export function wireRequest(section: Buffer): WireRequest {
  const { head, body } = splitHead(section);
  const [method, target] = (head[0] as string).split(' ') as [string, string];
  const q = target.indexOf('?');
  const query: Record<string, string> = {};
  if (q >= 0) {
    for (const pair of target.slice(q + 1).split('&')) {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      const raw = eq < 0 ? '' : pair.slice(eq + 1);
      let value: string;
      try {
        value = decodeURIComponent(raw.replace(/\+/g, ' '));
      } catch {
        value = raw;
      }
      query[key] = value;
    }
  }
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const c = line.indexOf(':');
    if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
  }
  return { method, path: q < 0 ? target : target.slice(0, q), query, headers, body: new Uint8Array(body) };
}

/** Body of a response section (full HTTP response or body only). */
export function responseBody(section: Buffer): string {
  const text = section.toString('utf8');
  if (!text.startsWith('HTTP/')) return text;
  return splitHead(section).body.toString('utf8');
}

/** Normalisation of the README before comparing: CR LF → LF, trailing blanks per line, outer empty lines. */
export function normalise(body: string): string {
  return body
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

export interface Assertion {
  readonly exchange: number;
  readonly kind: 'status' | 'body' | 'regex' | 'prefix' | 'none';
  readonly argument: string;
}

export function assertions(fixture: Fixture): Assertion[] {
  return (fixture.header.assert ?? []).map((line) => {
    const m = /^(\d+) (status|body|regex|prefix|none)(?: (.*))?$/.exec(line);
    if (m === null) throw new Error(`bad assert line in ${fixture.file}: ${line}`);
    return { exchange: Number(m[1]), kind: m[2] as Assertion['kind'], argument: m[3] ?? '' };
  });
}

/** Whether a reply body satisfies one assertion; `expected` is the fixture's response body. */
export function holds(assertion: Assertion, status: number, body: string, expected: string): boolean {
  switch (assertion.kind) {
    case 'status':
      return assertion.argument === 'any' || Number(assertion.argument) === status;
    case 'body':
      return status === 200 && normalise(body) === normalise(expected);
    case 'regex':
      return status === 200 && new RegExp(assertion.argument, 'm').test(normalise(body));
    case 'prefix':
      return status === 200 && normalise(body).startsWith(assertion.argument);
    case 'none':
      return status === 200;
  }
}
