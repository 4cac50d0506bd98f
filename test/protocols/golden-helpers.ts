// Shared by the golden tests: decode a fixture exchange and render the reply a pure codec function gives.
import type { Codec, DecodeResult, DeviceReply } from '../../protocols/codec.js';
import { codecFor, countRecords } from '../../protocols/index.js';
import { assertions, holds, readFixture, responseBody, wireRequest, type Fixture } from './fixture-reader.js';

export const NOW = new Date(Date.UTC(2026, 1, 3, 8, 15, 0));
export const ZONE = 'Asia/Kolkata';

export function decodeExchange(fixture: Fixture, n: number, codec: Codec = codecFor('2.0.0')): DecodeResult {
  const exchange = fixture.exchanges[n - 1];
  if (exchange === undefined) throw new Error(`${fixture.file} has no exchange ${n}`);
  return codec.decode(wireRequest(exchange.request));
}

export interface ReplyOptions {
  readonly fullAttlogReupload?: boolean;
  readonly registration?: { registryCode: string; sessionId: string };
}

/** The reply BioGate's pure functions give for a decoded request (nothing queued, every record stored). */
export function replyFor(codec: Codec, result: DecodeResult, options: ReplyOptions = {}): DeviceReply {
  const plan = result.reply;
  switch (plan.kind) {
    case 'handshake':
      return codec.replies.handshake({
        sn: result.sn,
        timeZone: ZONE,
        now: NOW,
        ...(options.fullAttlogReupload === undefined ? {} : { fullAttlogReupload: options.fullAttlogReupload }),
        ...(options.registration === undefined ? {} : { registration: options.registration }),
      });
    case 'registry':
      return codec.replies.registry('BG7F3A9C21D0');
    case 'config':
      return codec.replies.config({ sessionId: '30BFB04B2C8AECC72C01C03BFD549D15' });
    case 'commands':
      return codec.replies.commands([]);
    case 'time':
      return codec.replies.time(NOW, ZONE, plan.flavor);
    case 'remoteUser':
      return codec.replies.remoteUser([]);
    case 'file':
      return codec.replies.ok();
    case 'ok':
    case 'okCount':
    case 'tableCount':
    case 'tableEcho':
    case 'countMismatch':
      return codec.replies.upload(plan, countRecords(result.events));
  }
}

/** Every `# assert:` line of a fixture against the replies above; returns failures as text. */
export function failedAssertions(version: 'v2' | 'v3', file: string, options: (n: number) => ReplyOptions = () => ({})): string[] {
  const fixture = readFixture(version, file);
  const codec = codecFor(version === 'v2' ? '2.0.0' : '3.0.0');
  const failures: string[] = [];
  fixture.exchanges.forEach((exchange, i) => {
    const n = i + 1;
    const reply = replyFor(codec, codec.decode(wireRequest(exchange.request)), options(n));
    const expected = responseBody(exchange.response);
    const checks = assertions(fixture).filter((a) => a.exchange === n);
    const all = checks.length > 0 ? checks : [{ exchange: n, kind: 'none' as const, argument: '' }];
    for (const a of all)
      if (!holds(a, reply.status, reply.body, expected))
        failures.push(`${file} #${n} ${a.kind} ${a.argument} ← ${JSON.stringify(reply.body)}`);
  });
  return failures;
}
