// Punches for the event consumers (webhooks, MQTT): ATTLOG uploads [PUSH-v2 §6.2] from one v2
// terminal, each record with its own PIN so the consumer side can tell when each one arrived.
import { performance } from 'node:perf_hooks';
import type { Gateway } from './gateway.js';
import { sleep, waitFor } from './stats.js';

/** PIN → performance.now() when the consumer received it */
export type Arrivals = Map<string, number>;

const stamp = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

async function upload(gw: Gateway, sn: string, pins: readonly string[]): Promise<void> {
  const now = new Date();
  const body = pins.map((pin) => `${pin}\t${stamp(now)}\t0\t1\t0\t0\t0`).join('\n');
  const res = await fetch(`${gw.url}/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=9999`, { method: 'POST', body: `${body}\n` });
  if (res.status !== 200 || !(await res.text()).startsWith('OK')) throw new Error(`ATTLOG upload: HTTP ${res.status}`);
}

/** `count` single punches one every `gapMs`: ms from the upload's start to arrival, per punch. */
export async function punchLatencies(
  gw: Gateway,
  sn: string,
  arrivals: Arrivals,
  count: number,
  gapMs: number,
  firstPin: number,
): Promise<number[]> {
  const sent = new Map<string, number>();
  const uploads: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const pin = String(firstPin + i);
    sent.set(pin, performance.now());
    uploads.push(upload(gw, sn, [pin]));
    await sleep(gapMs);
  }
  await Promise.all(uploads);
  await waitFor(`${count} punches to arrive`, () => [...sent.keys()].every((p) => arrivals.has(p)), 60_000, 5);
  return [...sent].map(([pin, t0]) => (arrivals.get(pin) as number) - t0);
}

/** `records` punches in uploads of 100, 4 at a time: records/s from the first upload to the last arrival. */
export async function punchThroughput(gw: Gateway, sn: string, arrivals: Arrivals, records: number, firstPin: number): Promise<number> {
  const pins = Array.from({ length: records }, (_, i) => String(firstPin + i));
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < pins.length) {
        const batch = pins.slice(next, next + 100);
        next += 100;
        await upload(gw, sn, batch);
      }
    }),
  );
  await waitFor(`${records} punches to arrive`, () => pins.every((p) => arrivals.has(p)), 300_000, 10);
  const last = Math.max(...pins.map((p) => arrivals.get(p) as number));
  return records / ((last - t0) / 1000);
}
