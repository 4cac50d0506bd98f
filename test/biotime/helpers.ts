// Shared set-up of the BioTime-compatible API tests: the real app, a second location, a read token with a label,
// and plain HTTP calls shaped as BioTime clients make them (trailing slashes, `Token`/`JWT` schemes).
import type { Test } from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp, TEST_STORE, type StartedApp, type StartOptions } from '../helpers/app.js';

export type Json = Record<string, unknown>;
export interface Reply {
  readonly status: number;
  readonly body: Json;
  readonly headers: Headers;
}
export interface List<T = Json> {
  count: number;
  next: string | null;
  previous: string | null;
  msg: string;
  code: number;
  data: T[];
}

export interface BiotimeSetup {
  readonly app: StartedApp;
  /** `/api` as the bootstrap location's full token. */
  api(method: string, path: string, body?: unknown): Promise<Reply>;
  /** `/biotime` with an Authorization header (none when undefined). */
  call(method: string, path: string, authorization: string | undefined, body?: unknown): Promise<Reply>;
  /** A read token of the bootstrap location, labelled `payroll`. */
  readonly readToken: string;
  readonly readTokenId: number;
  /** A second location's full token. */
  readonly otherToken: string;
  readonly otherLocationId: number;
}

export async function biotimeSetup(t: Test, options: StartOptions = {}): Promise<BiotimeSetup> {
  const app = await startApp(t, { ...options, config: { adminToken: ADMIN_TOKEN, ...options.config } });
  const send = async (method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<Reply> => {
    const { res, body: parsed } = await fetchJson(url, body === undefined ? { method, headers } : jsonBody(method, body, headers));
    return { status: res.status, body: (parsed ?? {}) as Json, headers: res.headers };
  };
  const admin = bearer(ADMIN_TOKEN);
  const read = await send('POST', `${app.url}/admin/locations/${app.locationId}/tokens`, admin, { scope: 'read', label: 'payroll' });
  if (read.status !== 201) throw new Error(`read token: HTTP ${read.status}`);
  const other = await app.app.locations.create({ name: 'Elsewhere' });
  return {
    app,
    api: (method, path, body) => send(method, `${app.url}${path}`, bearer(app.token), body),
    call: (method, path, authorization, body) => send(method, `${app.url}${path}`, authorization ? { authorization } : {}, body),
    readToken: read.body['token'] as string,
    readTokenId: read.body['id'] as number,
    otherToken: other.token.token,
    otherLocationId: other.location.id,
  };
}

/**
 * Waits until the transactions list (arrival order) counts `n`: the MongoDB adapter shows a punch in arrival order
 * once its write has settled (AttendancePort.list), a few seconds after it arrived; SQLite at once.
 */
export async function punchesListed(s: BiotimeSetup, n: number, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await s.call('GET', '/biotime/iclock/api/transactions/', `Token ${s.app.token}`);
    if (r.body['count'] === n) return;
    if (Date.now() > deadline) throw new Error(`the transactions list still counts ${String(r.body['count'])}, not ${n}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `condition` every 10 ms until it holds (bounded, longer on the MongoDB leg; never a fixed sleep). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, ms = TEST_STORE === 'mongodb' ? 60_000 : 20_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Assigns a terminal, starts its simulator (src/simulator/, no code shared with the gateway) and waits for its first poll. */
export async function terminal(t: Test, s: BiotimeSetup, sn: string, name: string, protocol: 'v2' | 'v3' = 'v2'): Promise<SimulatedDevice> {
  const assigned = await s.api('POST', '/api/devices', { sn, name });
  if (assigned.status !== 201) throw new Error(`assigning ${sn}: HTTP ${assigned.status}`);
  const sim = createSimulatedDevice({
    url: s.app.url,
    sn,
    protocol,
    pollDelayMs: 30,
    fast: true,
    requestTimeoutMs: 10_000,
    retryDelayMs: 100,
  });
  t.teardown(() => sim.stop());
  sim.start();
  await until(() => sim.stats.polls > 0, `${sn} polling`);
  return sim;
}
