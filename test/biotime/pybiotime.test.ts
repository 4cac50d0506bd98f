/**
 * An independent BioTime client, pybiotime (PyPI, test/biotime/requirements.txt), runs its own flows against
 * /biotime (issue #37 "Verified by"): sign-in with both schemes, terminals and transactions with filters and
 * paging (page_size 3, so every list follows `next`), and an employee created, updated and deleted through it
 * reaching an emulated terminal. CI installs it (.ci/run, BIOGATE_PYBIOTIME_PYTHON); without it this skips, visibly.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { biotimeSetup, punchesListed, terminal, until } from './helpers.js';

const python = process.env['BIOGATE_PYBIOTIME_PYTHON'];
const run = promisify(execFile);
t.test(
  'pybiotime against /biotime',
  { skip: !python && 'BIOGATE_PYBIOTIME_PYTHON is not set (pip install -r test/biotime/requirements.txt)' },
  async (t) => {
    const s = await biotimeSetup(t);
    const flow = async (step: string, ...args: (string | number)[]) => {
      const { stdout } = await run(
        python as string,
        [
          join(import.meta.dirname, 'pybiotime_flows.py'),
          step,
          `${s.app.url}/biotime`,
          String(s.app.locationId),
          s.app.token,
          ...args.map(String),
        ],
        {
          timeout: 120_000,
        },
      );
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const sim = await terminal(t, s, 'PY-DESK', 'Desk', 'v3');
    t.equal((await s.api('POST', '/api/devices', { sn: 'PY-GATE', name: 'Gate' })).status, 201);
    for (let i = 0; i < 10; i++) t.ok(await sim.punch('4001', `2026-03-01 09:0${i}:00`, i % 2, 1));
    await punchesListed(s, 10);

    const read = await flow('read');
    for (const scheme of ['token', 'jwt']) {
      t.match(
        read[scheme],
        {
          terminals: ['PY-DESK', 'PY-GATE'],
          desk_alias: 'Desk',
          window: [
            '2026-03-01 09:02:00',
            '2026-03-01 09:03:00',
            '2026-03-01 09:04:00',
            '2026-03-01 09:05:00',
            '2026-03-01 09:06:00',
            '2026-03-01 09:07:00',
            '2026-03-01 09:08:00',
            '2026-03-01 09:09:00',
          ],
          window_states: ['0', '1', '0', '1', '0', '1', '0', '1'],
          count: 10,
          newest: '2026-03-01 09:09:00',
        },
        scheme,
      );
      const ids = (read[scheme] as { all_ids: number[] }).all_ids;
      t.equal(new Set(ids).size, 10, `${scheme}: every punch once over four pages`);
    }

    const area = (await s.api('POST', '/api/areas', { name: 'Plant' })).body['id'] as number;
    const dept = (
      await s.call('POST', '/biotime/personnel/api/departments/', `Token ${s.app.token}`, { dept_code: 'OPS', dept_name: 'Operations' })
    ).body['id'] as number;
    const created = await flow('create', dept, area);
    t.match(created, { emp_code: '5001', first_name: 'Py', found: created['id'] });
    t.match((await s.api('GET', '/api/users/5001')).body, { first_name: 'Py', last_name: 'Thon', department: 'Operations', areas: [area] });
    await until(() => sim.users().has('5001'), 'employee 5001 on the terminal');
    t.match(await flow('update', created['id'] as number), { first_name: 'Pia', last_name: 'Thon' });
    await until(() => /^Pia/.test(sim.users().get('5001')?.name ?? ''), 'the new name on the terminal');
    t.same(await flow('delete', created['id'] as number), { gone: true });
    t.equal((await s.api('GET', '/api/users/5001')).status, 404);
    await until(() => !sim.users().has('5001'), 'employee 5001 deleted from the terminal');
  },
);
