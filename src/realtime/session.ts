/**
 * One /api/stream connection: its topic filters, its place in the location's event feed, and the
 * order of what it is sent.
 *
 * - Feed events pass the filters through topicMessages() (the mapping the MQTT bridge uses too) and
 *   go out as `{topic, payload, seq}`.
 * - subscribe: the retained topics matching the new filters go out first (`retained: true`), then
 *   `{op:"subscribed"}`; feed events arriving meanwhile wait, so a snapshot never overwrites a newer
 *   live state on the client.
 * - resume after N: a new feed subscription replaying from the store; seqs this connection already
 *   had handed to it are skipped, so nothing is sent twice.
 * - Client messages run one at a time; too many waiting, or too many events held while a snapshot
 *   is read, and the client is cut off: nothing here grows without bound.
 */
import type { Caller } from '../auth/authenticate.js';
import { BioGateError, toErrorResponse } from '../errors.js';
import { topicMatches, topicMessages, type TopicMessage } from '../events/topics.js';
import type { AnyFeedEvent, EventFeed, FeedSubscription } from '../events/types.js';
import { CLOSE_POLICY } from '../http/websocket.js';
import type { WebSocketConnection } from '../http/types.js';
import type { Logger } from '../log.js';
import { parseClientMessage, MAX_FILTERS, type ClientMessage } from './messages.js';
import type { SnapshotDeps } from './snapshot.js';
import { retainedMessages } from './snapshot.js';

/** Client messages waiting to be handled. */
const MAX_PENDING_OPS = 16;
/** Feed events held while a snapshot is read from the store. */
const MAX_HELD_EVENTS = 10_000;

export interface SessionDeps extends SnapshotDeps {
  readonly feed: EventFeed;
  readonly log: Logger;
  /** A snapshot waits for the client to read while more than this is unread (below the connection's cut-off). */
  readonly snapshotPauseBytes: number;
}

/** What a session needs of its connection (src/http's WebSocketConnection). */
export type StreamConnection = Pick<WebSocketConnection<unknown>, 'send' | 'end' | 'closed' | 'bufferedAmount'>;

export class StreamSession {
  readonly caller: Caller;
  readonly #deps: SessionDeps;
  readonly #conn: StreamConnection;
  readonly #filters = new Set<string>();
  #sub: FeedSubscription | null = null;
  /** Seqs the feed handed this connection: one contiguous range, since the feed delivers in order. */
  #seen: { from: number; to: number } | null = null;
  /** Non-null while a snapshot is being read: live events wait here. */
  #held: AnyFeedEvent[] | null = null;
  #ops: Promise<void> = Promise.resolve();
  #pending = 0;
  #closed = false;
  #drainWaiters: (() => void)[] = [];

  constructor(deps: SessionDeps, conn: StreamConnection, caller: Caller) {
    this.#deps = deps;
    this.#conn = conn;
    this.caller = caller;
  }

  get locationId(): number {
    return this.caller.location.id;
  }

  /** Live from now on; nothing is sent before the first subscribe. */
  open(): void {
    this.#sub = this.#deps.feed.subscribe({ locationId: this.locationId }, (e) => this.#onEvent(e));
  }

  close(): void {
    this.#closed = true;
    this.#sub?.close();
    this.#sub = null;
    this.#held = null;
    this.drain();
  }

  /** The connection took what was buffered: a paused snapshot goes on. */
  drain(): void {
    for (const resume of this.#drainWaiters.splice(0)) resume();
  }

  /** A frame from the client. Handled in order, one at a time. */
  message(data: Uint8Array, isBinary: boolean): void {
    if (this.#closed) return;
    if (this.#pending >= MAX_PENDING_OPS) {
      this.#deps.log.warn({ location: this.locationId }, 'stream client sends faster than it is answered: disconnected');
      this.#conn.end(CLOSE_POLICY, 'too many messages waiting');
      return;
    }
    let msg: ClientMessage;
    try {
      if (isBinary) throw new BioGateError('BAD_REQUEST', 'Send text frames with JSON messages');
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(data);
      } catch {
        throw new BioGateError('BAD_REQUEST', 'The message is not valid UTF-8');
      }
      msg = parseClientMessage(text);
    } catch (err) {
      this.#error(err);
      return;
    }
    this.#pending++;
    this.#ops = this.#ops
      .then(() => this.#handle(msg))
      .catch((err: unknown) => this.#error(err))
      .finally(() => this.#pending--);
  }

  async #handle(msg: ClientMessage): Promise<void> {
    if (this.#closed) return;
    switch (msg.op) {
      case 'subscribe':
        return this.#subscribe(msg.topics);
      case 'unsubscribe': {
        const removed = msg.topics ?? [...this.#filters];
        for (const f of removed) this.#filters.delete(f);
        this.#send({ op: 'unsubscribed', topics: removed });
        return;
      }
      case 'resume':
        return this.#resume(msg.after);
      default: {
        const never: never = msg;
        return never;
      }
    }
  }

  async #subscribe(topics: readonly string[]): Promise<void> {
    const added = topics.filter((t) => !this.#filters.has(t));
    if (this.#filters.size + added.length > MAX_FILTERS) {
      throw new BioGateError('VALIDATION_FAILED', [
        { loc: ['topics'], msg: `at most ${MAX_FILTERS} topic filters per connection`, type: 'too_long' },
      ]);
    }
    for (const t of topics) this.#filters.add(t);
    this.#held = [];
    try {
      const seq = this.#seen?.to ?? (await this.#deps.feed.latestSeq(this.locationId));
      const retained = await retainedMessages(this.#deps, this.caller.location, topics);
      if (this.#closed) return;
      for (const m of retained) {
        // A location with thousands of devices has a snapshot larger than the unread-bytes limit:
        // send it at the client's pace instead of cutting the client off.
        while (!this.#closed && this.#conn.bufferedAmount > this.#deps.snapshotPauseBytes) {
          await new Promise<void>((resume) => this.#drainWaiters.push(resume));
        }
        if (this.#closed) return;
        this.#sendTopic(m, seq, true);
      }
      this.#send({ op: 'subscribed', topics, seq });
    } finally {
      const held = this.#held ?? [];
      this.#held = null;
      for (const e of held) this.#forward(e);
    }
  }

  #resume(after: number): void {
    this.#sub?.close();
    this.#sub = this.#deps.feed.subscribe({ locationId: this.locationId, after }, (e) => this.#onEvent(e));
    this.#send({ op: 'resumed', after });
  }

  #onEvent(e: AnyFeedEvent): void {
    if (this.#closed) return;
    // Already handed to this connection (a resume replays from before what it had live): skip.
    const seen = this.#seen;
    if (seen && e.seq >= seen.from && e.seq <= seen.to) return;
    this.#seen = seen ? { from: Math.min(seen.from, e.seq), to: Math.max(seen.to, e.seq) } : { from: e.seq, to: e.seq };
    if (this.#held) {
      if (this.#held.length >= MAX_HELD_EVENTS) {
        this.#conn.end(CLOSE_POLICY, 'too slow: events piled up during the snapshot');
        return;
      }
      this.#held.push(e);
      return;
    }
    this.#forward(e);
  }

  #forward(e: AnyFeedEvent): void {
    if (this.#filters.size === 0) return;
    for (const m of topicMessages(e)) {
      for (const f of this.#filters) {
        if (topicMatches(f, m.topic)) {
          this.#sendTopic(m, e.seq, false);
          break;
        }
      }
    }
  }

  #sendTopic(m: TopicMessage, seq: number, retained: boolean): void {
    this.#send(retained ? { topic: m.topic, payload: m.payload, seq, retained: true } : { topic: m.topic, payload: m.payload, seq });
  }

  #error(err: unknown): void {
    if (err instanceof BioGateError) {
      const { body } = toErrorResponse(err);
      this.#send({ op: 'error', error: { detail: body.detail, code: body.code } });
      return;
    }
    this.#deps.log.error({ err, location: this.locationId }, 'stream: handling a client message failed');
    this.#send({ op: 'error', error: { detail: 'Internal error', code: 'INTERNAL' } });
  }

  /** The connection enforces the unread-bytes limit (closes a client that stopped reading). */
  #send(message: object): void {
    if (this.#closed || this.#conn.closed) return;
    this.#conn.send(JSON.stringify(message));
  }
}
