// `ingest`: ATTLOG uploads [PUSH-v2 §6.2] of 100 records each, every record new (so dedup by
// (serial, PIN, time, status, verify) stores them all), spread over 20 assigned v2 terminals. Records/s
// stored; the store's count is checked against the answered uploads at the end. Baseline: the raw uWS
// hello world reading the same bodies (records/s it could receive).
import { startBaseline } from '../lib/baseline.js';
import { call, compareLoad, handshakeV2, inParallel, type Context, type Scenario } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { withGateway } from '../lib/gateway.js';
import type { LoadPlan } from '../lib/load.js';

const BATCH = 100;
const TERMINALS = 20;
/** Users whose PINs the records carry. */
const USERS = 10_000;
/** 2025-01-01T00:00:00Z: records count up one second each from here, per load thread. */
const EPOCH = 1_735_689_600;
const serial = (i: number) => `BENCHI${String(i).padStart(3, '0')}`;
const stamp = (t: number) => new Date(t * 1000).toISOString().slice(0, 19).replace('T', ' ');

const plan: LoadPlan = {
  method: 'POST',
  // Records as a site makes them: each of 10,000 users punching in turn (PIN = a step of 7,919,
  // prime to 10,000, through the record counter), each terminal's records in time order. Threads
  // (tid) keep apart by a clock 10^8 s (three years) from one another, so no record repeats.
  lua: `local B, T, EPOCH, USERS = ${BATCH}, ${TERMINALS}, ${EPOCH}, ${USERS}
function make(tid, k)
  local lines = {}
  for j = 0, B - 1 do
    local n = (k - 1) * B + j
    lines[#lines + 1] = tostring(1 + (n * 7919) % USERS) .. "\\t" .. os.date("!%Y-%m-%d %H:%M:%S", EPOCH + tid * 100000000 + n) .. "\\t0\\t1\\t0\\t0\\t0"
  end
  return string.format("/iclock/cdata?SN=BENCHI%03d&table=ATTLOG&Stamp=9999", k % T + 1), table.concat(lines, "\\n") .. "\\n"
end`,
  make(tid, k) {
    const lines: string[] = [];
    for (let j = 0; j < BATCH; j++) {
      const n = (k - 1) * BATCH + j;
      lines.push(`${1 + ((n * 7919) % USERS)}\t${stamp(EPOCH + tid * 100_000_000 + n)}\t0\t1\t0\t0\t0`);
    }
    return { path: `/iclock/cdata?SN=${serial((k % TERMINALS) + 1)}&table=ATTLOG&Stamp=9999`, body: `${lines.join('\n')}\n` };
  },
};

export const ingestScenario: Scenario = {
  name: 'ingest',
  description: 'ATTLOG uploads of 100 new records each over 20 v2 terminals: records/s stored with dedup, store count checked',
  inDefault: true,
  async run(ctx: Context): Promise<Figure[]> {
    const connections = ctx.smoke ? 4 : 16;
    const seconds = ctx.smoke ? 1 : 8;
    const serials = Array.from({ length: TERMINALS }, (_, i) => serial(i + 1));
    const baseline = await startBaseline();
    try {
      return await withGateway({ store: ctx.store, engine: ctx.engine }, async (gw) => {
        await inParallel(serials, 8, async (sn) => {
          const r = await call(gw, 'POST', '/api/devices', { sn });
          if (r.status !== 201) throw new Error(`assigning ${sn}: HTTP ${r.status}`);
        });
        await inParallel(serials, 8, (sn) => handshakeV2(gw, sn));
        // Dedup holds: the same batch twice is stored once.
        const once = plan.make(1, 1);
        for (let i = 0; i < 2; i++) {
          const r = await fetch(`${gw.url}${once.path}`, { method: 'POST', body: once.body ?? '' });
          if (r.status !== 200 || !(await r.text()).startsWith('OK')) throw new Error(`ATTLOG upload: HTTP ${r.status}`);
        }
        const count = async () => ((await call(gw, 'GET', '/api/attendance?limit=1')).body as { total: number }).total;
        if ((await count()) !== BATCH) throw new Error(`a batch sent twice left ${await count()} records, not ${BATCH}`);

        const cmp = await compareLoad(ctx, baseline.url, [{ url: gw.url, plan }], connections, seconds);
        const runs = cmp.candidateRuns[0] ?? [];
        const failed = runs.reduce((n, r) => n + r.failed, 0);
        if (failed > 0) throw new Error(`${failed} ATTLOG uploads failed`);
        // Every answered upload is stored; uploads still in flight when the generator stopped may be too.
        const answered = runs.reduce((n, r) => n + r.ok, 0) * BATCH;
        const stored = (await count()) - BATCH;
        if (stored < answered || stored > answered + runs.length * connections * BATCH) {
          throw new Error(
            `the store holds ${stored} records; ${answered} were acknowledged (at most ${runs.length * connections * BATCH} more in flight)`,
          );
        }
        return [
          figure(
            'ingest',
            `ATTLOG records stored, batches of ${BATCH}, ${connections} connections`,
            (cmp.candidates[0] as number) * BATCH,
            'records/s',
            {
              baseline: cmp.baseline * BATCH,
              target: { on: 'value', goal: { atLeast: 150_000 }, text: '≥ 150,000 records/s' },
            },
          ),
          figure('ingest', 'records in the store after the load (count checked)', stored, 'records', { note: `${answered} acknowledged` }),
        ];
      });
    } finally {
      await baseline.stop();
    }
  },
};
