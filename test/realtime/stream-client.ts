/**
 * A real WebSocket client (the `ws` package) for GET /api/stream, recording what it receives.
 * `next()` waits for the next matching message after the previous match, so a test reads the
 * stream in order.
 */
import WebSocket from 'ws';
import type { Teardown } from '../helpers/app.js';

export type StreamMessage = Record<string, unknown> & { topic?: string; payload?: unknown; seq?: number; op?: string };

export interface StreamClient {
  readonly ws: WebSocket;
  /** Everything received, parsed. */
  readonly messages: StreamMessage[];
  send(message: unknown): void;
  /** The next message (after the last one `next` returned) that satisfies `match`. */
  next(match: (m: StreamMessage) => boolean, what: string, ms?: number): Promise<StreamMessage>;
  /** Messages after the last `next` match, without waiting. */
  rest(): StreamMessage[];
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export interface ConnectOptions {
  /** How the token travels (default: header). */
  readonly via?: 'header' | 'protocol' | 'query';
  readonly token?: string;
  readonly protocols?: string[];
  readonly headers?: Record<string, string>;
}

function target(base: string, o: ConnectOptions): { url: string; protocols: string[]; headers: Record<string, string> } {
  const url = new URL('/api/stream', base.replace(/^http/, 'ws'));
  const headers: Record<string, string> = { ...o.headers };
  const protocols = [...(o.protocols ?? [])];
  if (o.token !== undefined) {
    if ((o.via ?? 'header') === 'header') headers['authorization'] = `Bearer ${o.token}`;
    else if (o.via === 'protocol') protocols.push('bearer', o.token);
    else url.searchParams.set('access_token', o.token);
  }
  return { url: url.toString(), protocols, headers };
}

export async function openStream(t: Teardown, base: string, o: ConnectOptions = {}): Promise<StreamClient> {
  const { url, protocols, headers } = target(base, o);
  const ws = new WebSocket(url, protocols, { headers });
  const messages: StreamMessage[] = [];
  let cursor = 0;
  const waiters = new Set<() => void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()) as StreamMessage);
    for (const w of [...waiters]) w();
  });
  t.teardown(() => ws.terminate());
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  return {
    ws,
    messages,
    closed,
    send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
    rest: () => messages.slice(cursor),
    close: () => ws.close(),
    next(match, what, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          for (let i = cursor; i < messages.length; i++) {
            const m = messages[i] as StreamMessage;
            if (match(m)) {
              cursor = i + 1;
              waiters.delete(look);
              clearTimeout(timer);
              resolve(m);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`timed out after ${ms} ms waiting for ${what}; got ${JSON.stringify(messages.slice(cursor)).slice(0, 600)}`));
        }, ms);
        waiters.add(look);
        look();
      });
    },
  };
}

/** An upgrade that must be refused: the HTTP status and JSON body, before any WebSocket exists. */
export async function refusedUpgrade(base: string, o: ConnectOptions = {}): Promise<{ status: number; body: unknown; upgraded: boolean }> {
  const { url, protocols, headers } = target(base, o);
  const ws = new WebSocket(url, protocols, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.terminate();
      resolve({ status: 101, body: null, upgraded: true });
    });
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : null, upgraded: false }));
      res.on('error', reject);
    });
    ws.once('error', (err) => {
      if (!/Unexpected server response/.test(err.message)) reject(err);
    });
  });
}

/** Subscribes and waits for the acknowledgement (after the snapshot). */
export async function subscribe(client: StreamClient, topics?: string[]): Promise<StreamMessage> {
  client.send(topics ? { op: 'subscribe', topics } : { op: 'subscribe' });
  return client.next((m) => m.op === 'subscribed', `subscribed ${JSON.stringify(topics ?? null)}`);
}
