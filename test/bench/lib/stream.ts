// A client of the gateway's WebSocket stream (GET /api/stream, README "WebSocket stream"): the moment
// each command reaches a status, as the integrator sees it.
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import type { Gateway } from './gateway.js';

export interface CommandWatch {
  /** resolves with performance.now() when command `id` is `success` (rejects on `failed` or timeout) */
  success(id: number, timeoutMs: number): Promise<number>;
  close(): void;
}

export async function watchCommands(gw: Gateway): Promise<CommandWatch> {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/api/stream`, { headers: { authorization: `Bearer ${gw.token}` } });
  const done = new Map<number, { at: number; status: string }>();
  const waiting = new Map<number, (v: { at: number; status: string }) => void>();
  ws.on('message', (data: WebSocket.RawData) => {
    const at = performance.now();
    const m = JSON.parse(String(data)) as { topic?: string; payload?: { id?: number; status?: string } };
    if (!m.topic?.startsWith('commands/') || !m.payload) return;
    const { id, status } = m.payload;
    if (typeof id !== 'number' || (status !== 'success' && status !== 'failed')) return;
    done.set(id, { at, status });
    waiting.get(id)?.({ at, status });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ op: 'subscribe', topics: ['commands/#'] })));
    ws.on('message', (data: WebSocket.RawData) => {
      if ((JSON.parse(String(data)) as { op?: string }).op === 'subscribed') resolve();
    });
  });
  return {
    success(id, timeoutMs) {
      return new Promise<number>((resolve, reject) => {
        const settle = (v: { at: number; status: string }) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (v.status === 'success') resolve(v.at);
          else reject(new Error(`command ${id} failed`));
        };
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`command ${id} not successful within ${timeoutMs} ms`));
        }, timeoutMs);
        const known = done.get(id);
        if (known) settle(known);
        else waiting.set(id, settle);
      });
    },
    close: () => ws.close(),
  };
}

export interface RevocationWatch {
  /** resolves with performance.now() of the `success` that made `terminals` distinct terminals confirm the
   *  deletion of `pin` (a sync op `user.delete`); rejects after `timeoutMs` with how many had */
  confirmedBy(pin: number, terminals: number, timeoutMs: number): Promise<number>;
  /** distinct terminals that confirmed the deletion of `pin` so far */
  count(pin: number): number;
  /** `failed` deletion ops seen */
  readonly failed: number;
  close(): void;
}

/** The stream's `commands/#`: each terminal's confirmation of a user deletion, as the integrator sees it. */
export async function watchRevocations(gw: Gateway): Promise<RevocationWatch> {
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/api/stream`, { headers: { authorization: `Bearer ${gw.token}` } });
  const confirmed = new Map<number, Set<string>>();
  const waiting = new Map<number, { terminals: number; resolve: (at: number) => void }>();
  let failed = 0;
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ op: 'subscribe', topics: ['commands/#'] })));
    ws.on('message', (data: WebSocket.RawData) => {
      const at = performance.now();
      const m = JSON.parse(String(data)) as {
        op?: string;
        topic?: string;
        payload?: { sn?: string; status?: string; command?: string; params?: { op?: string; pin?: number } | null };
      };
      if (m.op === 'subscribed') return resolve();
      const c = m.payload;
      if (!m.topic?.startsWith('commands/') || c?.command !== 'sync-users' || c.params?.op !== 'user.delete') return;
      const pin = Number(c.params.pin);
      if (c.status === 'failed') failed++;
      if (c.status !== 'success' || typeof c.sn !== 'string') return;
      let sns = confirmed.get(pin);
      if (!sns) confirmed.set(pin, (sns = new Set()));
      sns.add(c.sn);
      const w = waiting.get(pin);
      if (w && sns.size >= w.terminals) {
        waiting.delete(pin);
        w.resolve(at);
      }
    });
  });
  return {
    confirmedBy(pin, terminals, timeoutMs) {
      if ((confirmed.get(pin)?.size ?? 0) >= terminals) return Promise.resolve(performance.now());
      return new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(pin);
          reject(new Error(`PIN ${pin}: ${confirmed.get(pin)?.size ?? 0} of ${terminals} terminals confirmed within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.set(pin, {
          terminals,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        });
      });
    },
    count: (pin) => confirmed.get(pin)?.size ?? 0,
    get failed() {
      return failed;
    },
    close: () => ws.close(),
  };
}
