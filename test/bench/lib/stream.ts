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
