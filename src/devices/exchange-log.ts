/**
 * The terminal exchange log (issue #36 item 2): what each terminal asked and was answered, without bodies or
 * template bytes, for `GET /api/devices/{sn}/exchanges`.
 *
 * - A request of an assigned terminal that reached its actor is one exchange (refused ones included); a
 *   request the codec refused before (no serial, unknown endpoint) and one of an unassigned terminal are not.
 * - Consecutive identical exchanges of a terminal (a request without a body, the same method, endpoint and table,
 *   answered with the same status and the same short body) are one entry: `repeat` counts them from `first_at` to
 *   `at`. Idle polls would otherwise push an upload out of the last EXCHANGES_KEPT within minutes.
 * - Written behind, like `last_seen` (presence.ts): a new entry waits here up to FLUSH_EVERY_MS, a run that only
 *   grew up to RUN_WRITE_EVERY_MS; then they go to the store in batches of FLUSH_BATCH with a turn of the event loop
 *   between them, and each terminal that got a new entry is trimmed to EXCHANGES_KEPT there. A reader on this node
 *   flushes that terminal's runs first (never every terminal's: a reader cannot make a node rewrite every run);
 *   another node's new entries may be FLUSH_EVERY_MS late, its runs' `at` and `repeat` RUN_WRITE_EVERY_MS. At most
 *   MAX_PENDING entries wait: beyond that new ones are dropped (counted, logged).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Charset, DecodeResult, DeviceReply, WireRequest } from '../../protocols/index.js';
import { encodeBody } from '../charset.js';
import type { Logger } from '../log.js';
import type { DeviceExchange, ExchangeTrim } from '../store/ports/index.js';
import type { Store } from '../store/types.js';

/** A reply as the actor gives it (actor-types.ts ActorReply), in the character set it goes out in. */
type Answer = DeviceReply & { readonly charset?: Charset };

export const EXCHANGES_KEPT = 200;
export const FLUSH_EVERY_MS = 2_000;
/**
 * A run that only grew (idle polls) is written at most this often by the timer: at 10,000 terminals polling, every
 * run every 2 s would be 5,000 row writes a second for two numbers. New entries still go within FLUSH_EVERY_MS.
 */
export const RUN_WRITE_EVERY_MS = 30_000;
const FLUSH_BATCH = 250;
const MAX_PENDING = 50_000;
/** A terminal's open run is forgotten (its row stays) once it has been quiet this long here. */
const OPEN_IDLE_MS = 10 * 60_000;
const ERROR_CHARS = 200;
const TABLE = /^[\x21-\x7e]{1,32}$/;

/** The request as the actor got it (actor-types.ts PushRequest). */
interface Asked {
  readonly wire: WireRequest;
  readonly decoded: DecodeResult;
}

/**
 * A terminal's newest entry on this node, mutable while it is the open run (the next identical exchange only moves
 * `lastMs` and `repeat`: no date text, no copy, on the idle-poll path); made a DeviceExchange when written.
 */
interface Run {
  readonly fixed: Omit<DeviceExchange, 'at' | 'first_at' | 'repeat'>;
  readonly firstMs: number;
  lastMs: number;
  repeat: number;
  /** The answer, to tell an identical one: kept only when short (an idle poll's `OK`), else undefined (no run). */
  readonly body: string | undefined;
  readonly charset: Charset | undefined;
  /** Waiting in `pending` since it last changed. */
  dirty: boolean;
  /** When it was last written (the runtime's clock, ms); null: never, it is a new entry. */
  writtenMs: number | null;
}

/** Answers longer than this are not kept to compare (commands): such exchanges never make a run. */
const RUN_BODY_MAX = 64;

export class ExchangeLog {
  readonly #store: Store;
  readonly #log: Logger;
  readonly #node: string;
  #seq = 0;
  /** Each terminal's open run on this node. */
  readonly #open = new Map<string, Run>();
  /** Runs changed since the last flush, each once. */
  #pending: Run[] = [];
  /** Terminals with a new entry since the last flush (location:sn), to trim. */
  #trim = new Map<string, ExchangeTrim>();
  #dropped = 0;
  /** The newest exchange's time (ms, the runtime's clock). */
  #latest = 0;
  #flushing: Promise<void> | undefined;

  constructor(store: Store, log: Logger, node: string) {
    this.#store = store;
    this.#log = log;
    this.#node = node;
  }

  /** Notes one answered request (`at`: ms; `locationId` null, unassigned: not noted) and returns its reply. */
  noted<R extends Answer>(sn: string, locationId: number | null, { wire, decoded }: Asked, reply: R, at: number): R {
    if (locationId === null) return reply;
    if (at > this.#latest) this.#latest = at;
    const open = this.#open.get(sn);
    // A request without a body (no lines, no results, nothing rejected) answered as the open run was: the same exchange.
    if (
      open?.body !== undefined &&
      wire.body.length === 0 &&
      open.body === reply.body &&
      open.fixed.status === reply.status &&
      open.fixed.endpoint === decoded.endpoint &&
      open.fixed.method === wire.method &&
      open.fixed.location_id === locationId &&
      open.fixed.records === null &&
      open.charset === reply.charset &&
      open.fixed.table === tableOf(wire.query)
    ) {
      open.lastMs = at;
      open.repeat++;
      this.#mark(open);
      return reply;
    }
    this.#start(sn, locationId, wire, decoded, reply, at);
    return reply;
  }

  #mark(run: Run): void {
    if (run.dirty) return;
    if (this.#pending.length >= MAX_PENDING) {
      if (this.#dropped++ === 0) this.#log.warn({ pending: MAX_PENDING }, 'terminal exchange log: the store is behind, exchanges dropped');
      return;
    }
    run.dirty = true;
    this.#pending.push(run);
  }

  #start(sn: string, locationId: number, wire: WireRequest, decoded: DecodeResult, reply: Answer, at: number): void {
    const run: Run = {
      fixed: {
        key: `${this.#node}:${(++this.#seq).toString(36).padStart(10, '0')}`,
        location_id: locationId,
        sn,
        method: wire.method,
        endpoint: decoded.endpoint,
        table: tableOf(wire.query),
        records: wire.body.length === 0 ? null : lines(wire.body),
        status: reply.status,
        answer_bytes: bytesOf(reply),
        error: errorOf(reply, decoded),
      },
      firstMs: at,
      lastMs: at,
      repeat: 1,
      body: wire.body.length === 0 && reply.body.length <= RUN_BODY_MAX ? reply.body : undefined,
      charset: reply.charset,
      dirty: false,
      writtenMs: null,
    };
    this.#mark(run);
    if (!run.dirty) return; // dropped
    this.#open.set(sn, run);
    this.#trim.set(`${locationId}:${sn}`, { location_id: locationId, sn });
  }

  /**
   * Writes what waits: new entries, and runs that only grew once RUN_WRITE_EVERY_MS has passed since they were last
   * written; `sn`: that terminal's runs too, as they are now (a reader of its log), `all`: every run (shutdown). One
   * flush at a time; a call during one waits for it and flushes again.
   */
  flush(scope: { readonly sn: string } | 'all' | 'due' = 'all'): Promise<void> {
    const next = (this.#flushing ?? Promise.resolve()).then(() => this.#write(scope));
    this.#flushing = next;
    void next.finally(() => {
      if (this.#flushing === next) this.#flushing = undefined;
    });
    return next;
  }

  async #write(scope: { readonly sn: string } | 'all' | 'due'): Promise<void> {
    const now = this.#latest;
    const due = (r: Run) =>
      scope === 'all' || r.writtenMs === null || now - r.writtenMs >= RUN_WRITE_EVERY_MS || (scope !== 'due' && r.fixed.sn === scope.sn);
    const runs = this.#pending.filter(due);
    // A run that only grew waits (still dirty, still pending); the rest is taken as it is now, and one that grows
    // meanwhile is marked again for the next flush.
    this.#pending = scope === 'all' ? [] : this.#pending.filter((r) => !due(r));
    const trim = [...this.#trim.values()];
    this.#trim = new Map();
    const entries = runs.map((r): DeviceExchange => {
      r.dirty = false;
      return { ...r.fixed, at: new Date(r.lastMs).toISOString(), first_at: new Date(r.firstMs).toISOString(), repeat: r.repeat };
    });
    try {
      for (let i = 0; i < entries.length; i += FLUSH_BATCH) {
        if (i > 0) await nextTurn();
        await this.#store.exchanges.write(entries.slice(i, i + FLUSH_BATCH), [], EXCHANGES_KEPT);
      }
      for (let i = 0; i < trim.length; i += FLUSH_BATCH) {
        if (i > 0 || entries.length > 0) await nextTurn();
        await this.#store.exchanges.write([], trim.slice(i, i + FLUSH_BATCH), EXCHANGES_KEPT);
      }
    } catch (err) {
      // Written again by the next flush (a run as it is then), within the bound.
      for (const r of runs) this.#mark(r);
      for (const t of trim) this.#trim.set(`${t.location_id}:${t.sn}`, t);
      this.#log.warn({ err, entries: entries.length }, 'terminal exchange log: write failed, will retry');
      return;
    }
    for (const r of runs) r.writtenMs = now;
    if (this.#dropped > 0) {
      this.#log.warn({ dropped: this.#dropped }, 'terminal exchange log: exchanges were dropped while the store was behind');
      this.#dropped = 0;
    }
    const quiet = this.#latest - OPEN_IDLE_MS;
    for (const [sn, run] of this.#open) if (run.lastMs < quiet) this.#open.delete(sn);
  }
}

/** Lines in a body: newline-separated, the last one without a newline counted too. */
function lines(body: Uint8Array): number {
  let n = 0;
  for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) n++;
  return body[body.length - 1] === 10 ? n : n + 1;
}

/** The upload's table as named in the query (v3 `tablename`, else `table`), when printable and short. */
function tableOf(query: Readonly<Record<string, string>>): string | null {
  const t = query['tablename'] ?? query['table'] ?? null;
  return t !== null && TABLE.test(t) ? t : null;
}

function bytesOf(reply: Answer): number {
  const body = encodeBody(reply.body, reply.charset);
  return typeof body === 'string' ? Buffer.byteLength(body) : body.length;
}

/** What went wrong, in a line: a refusal, lines that did not decode, commands the terminal refused. */
function errorOf(reply: Answer, decoded: DecodeResult): string | null {
  const parts: string[] = [];
  if (reply.status === 401) parts.push('refused (401): comm key or registration token missing or wrong');
  else if (reply.status === 403) parts.push('refused (403): address outside the allowed networks');
  else if (reply.status >= 400) parts.push(`HTTP ${reply.status}: ${printable(reply.body)}`);
  if (decoded.rejected > 0) parts.push(`${decoded.rejected} line(s) could not be decoded`);
  let refused = 0;
  let first: { id: string; code: number } | undefined;
  for (const e of decoded.events) {
    if (e.type !== 'commandResults') continue;
    for (const r of e.results) {
      if (r.returnCode >= 0) continue;
      refused++;
      first ??= { id: r.id, code: r.returnCode };
    }
  }
  if (first) parts.push(`${refused} command(s) refused (first: ID=${printable(first.id).slice(0, 40)} Return=${first.code})`);
  return parts.length === 0 ? null : parts.join('; ').slice(0, ERROR_CHARS);
}

const printable = (text: string): string =>
  text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, 80);
