// Shared set-up of the convergence tests: the real app on port 0 with a fake clock, simulated v2 and v3
// terminals over HTTP (src/simulator/ shares no code with the gateway), and the REST API.
import type { Test } from 'tap';
import { createCommandLifecycle } from '../../src/devices/lifecycle.js';
import { createLogger } from '../../src/log.js';
import { createAudit } from '../../src/sync/audit.js';
import { createTerminalState } from '../../src/sync/terminal-state.js';
import { createSimulatedDevice, type SimulatedDevice, type SimulatedDeviceOptions } from '../../src/simulator/index.js';
import {
  bearer,
  fakeClock,
  fetchJson,
  jsonBody,
  startApp,
  TEST_STORE,
  type FakeClock,
  type StartedApp,
  type StartOptions,
} from '../helpers/app.js';

export type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

export interface SyncView {
  state: 'in_sync' | 'syncing' | 'drift' | 'unknown';
  owed: number;
  revocations_owed: number;
  refused: number;
  last_confirmed_at: string | null;
  last_audit_at: string | null;
  reason: string | null;
}

type PinPage = { data: { pin: number; since: string; code?: number }[]; total: number };
export type SyncDetail = Omit<SyncView, 'refused'> & { missing: PinPage; extra: PinPage; refused: PinPage };

export interface Setup {
  readonly app: StartedApp;
  readonly clock: FakeClock;
  readonly api: Api;
  /** Assigns a terminal, starts its simulator and waits for its first poll. */
  terminal(sn: string, protocol: 'v2' | 'v3', extra?: Partial<SimulatedDeviceOptions>, assign?: boolean): Promise<SimulatedDevice>;
  /** DeviceResponse.sync */
  sync(sn: string): Promise<SyncView>;
  /** GET /api/devices/{sn}/sync */
  detail(sn: string): Promise<SyncDetail>;
  /** Polls `condition` every 10 ms until it holds (bounded by `ms`, never a fixed sleep). */
  until(condition: () => Promise<boolean> | boolean, what: string, ms?: number): Promise<void>;
}

export async function setup(t: Test, config: StartOptions['config'] = {}): Promise<Setup> {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  // longpollS 1: an idle v3 poll returns within a second.
  const app = await startApp(t, { clock, config: { longpollS: 1, ackTimeoutS: 30, syncRetryMaxS: 300, ...config } });
  const api: Api = async (method, path, body) => {
    const init = body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token));
    const { res, body: parsed } = await fetchJson(`${app.url}${path}`, init);
    return { status: res.status, body: parsed };
  };
  // The MongoDB leg runs against an in-memory server that the other test files load too: a longer bound there
  // (a bound, not a wait: `until` returns as soon as the condition holds).
  const sims = new Map<string, SimulatedDevice>();
  const until = async (condition: () => Promise<boolean> | boolean, what: string, ms = TEST_STORE === 'mongodb' ? 60_000 : 20_000) => {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}\n${await stateOf(api, sims)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    app,
    clock,
    api,
    until,
    async terminal(sn, protocol, extra = {}, assign = true) {
      const assigned = assign ? await api('POST', '/api/devices', { sn, name: sn }) : { status: 201 };
      if (assigned.status !== 201) throw new Error(`assigning ${sn}: HTTP ${assigned.status}`);
      const sim = createSimulatedDevice({
        url: app.url,
        sn,
        protocol,
        pollDelayMs: 30,
        fast: true,
        requestTimeoutMs: 10_000,
        retryDelayMs: 100,
        ...extra,
      });
      t.teardown(() => sim.stop());
      sims.set(sn, sim);
      sim.start();
      await until(() => sim.stats.polls > 0, `${sn} first poll`);
      return sim;
    },
    async sync(sn) {
      const r = await api('GET', `/api/devices/${sn}`);
      if (r.status !== 200) throw new Error(`GET /api/devices/${sn}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      return (r.body as { sync: SyncView }).sync;
    },
    async detail(sn) {
      const r = await api('GET', `/api/devices/${sn}/sync`);
      if (r.status !== 200) throw new Error(`GET /api/devices/${sn}/sync: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as SyncDetail;
    },
  };
}

/** Command lines a terminal executed about one PIN (any table), with their return codes. */
export const linesAbout = (sim: SimulatedDevice, pin: number) =>
  sim.executed().filter((c) => new RegExp(`(?:^|[\\s\\t])(?:PIN|Pin)=${pin}(?:\\t|$)`).test(c.command));

/**
 * The audit as the app builds it (src/app.ts), on a started app's store, bus and sync queue, with its own
 * settings: a test runs its job or its count check directly instead of waiting for the app's timers.
 */
export function auditOf(app: StartedApp['app'], clock: FakeClock, settings: { intervalS: number; maxOutstanding: number }) {
  const { store, bus, sync } = app;
  const log = createLogger({ level: 'silent' });
  return createAudit({
    store,
    clock,
    bus,
    log,
    sync,
    terminals: createTerminalState({ store, clock, bus, log }),
    ...settings,
    create: createCommandLifecycle({ store, clock, bus }).create,
  });
}

/** What a timed-out wait reports: the commands not settled yet (newest first) and each terminal's counters. */
async function stateOf(api: Api, sims: ReadonlyMap<string, SimulatedDevice>): Promise<string> {
  const lines: string[] = [];
  try {
    // Failed ones with their reason: a command that ended without reaching the terminal says why.
    for (const status of ['pending', 'sent', 'failed']) {
      const r = await api('GET', `/api/commands?status=${status}&limit=20`);
      const page = r.body as {
        data?: { id: number; sn: string; command: string; status: string; sent_at?: string | null; error_message?: string | null }[];
        total?: number;
      };
      const shown = page.data?.map((c) => [c.id, c.sn, c.command, status === 'failed' ? (c.error_message ?? null) : (c.sent_at ?? null)]);
      lines.push(`${status}: ${page.total ?? '?'} ${JSON.stringify(shown ?? r.body)}`);
    }
  } catch (err) {
    lines.push(`commands unreadable: ${String(err)}`);
  }
  for (const [sn, sim] of sims) {
    const { polls, commandsReceived, resultPosts, errors, lastError, online } = sim.stats;
    lines.push(`${sn}: ${JSON.stringify({ polls, commandsReceived, resultPosts, errors, lastError, online })}`);
  }
  return lines.join('\n');
}
