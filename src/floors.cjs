// The floor map of src/README.md as dependency-cruiser rules, run by `npm run check`.
//
// GROUPS lists the units of src/ from the bottom up. A module may import from its own unit and from units
// in earlier groups; units that share a group (the doors; the two store adapters) do not import each other.
// Every cycle between files is refused as well; with the order above, no cycle between folders can form.
// Change src/README.md and this list together.
'use strict';

const dir = (d) => `^${d.replace(/[.]/g, '\\.')}`;
const file = (f) => `^${f.replace(/[.]/g, '\\.')}$`;

/** @type {ReadonlyArray<ReadonlyArray<readonly [string, string]>>} groups of [name, path pattern] */
const GROUPS = [
  [['simulator', dir('src/simulator/')]],
  [['protocols', dir('protocols/')]],
  // floor 1: base
  [['clock', file('src/clock.ts')]],
  [['errors', file('src/errors.ts')]],
  [['version', file('src/version.ts')]],
  [['node-version', file('src/node-version.ts')]],
  [['log', file('src/log.ts')]],
  [['validation', dir('src/validation/')]],
  [['csv-out', file('src/csv-out.ts')]],
  [['csv-table', file('src/csv-table.ts')]],
  [['charset', file('src/charset.ts')]],
  [['net', dir('src/net/')]],
  [['time', dir('src/time/')]],
  [['config', dir('src/config/')]],
  [['node-id', file('src/node-id.ts')]],
  [['http', dir('src/http/')]],
  // floor 2: store
  [['store/ports', dir('src/store/ports/')]],
  [['store/core', '^src/store/(?!open\\.ts$|maintenance\\.ts$)[^/]+$']],
  [
    ['store/sqlite', dir('src/store/sqlite/')],
    ['store/mongo', dir('src/store/mongo/')],
  ],
  [['store/open', '^src/store/(open|maintenance)\\.ts$']],
  // floor 3: domain, in import order
  [['views', dir('src/views/')]],
  [['events', dir('src/events/')]],
  [['audit-log', dir('src/audit-log/')]],
  [['auth', dir('src/auth/')]],
  [['locations', dir('src/locations/')]],
  [['ops', dir('src/ops/')]],
  [['webhooks', dir('src/webhooks/')]],
  [['devices', dir('src/devices/')]],
  [['sync', dir('src/sync/')]],
  [['users', dir('src/users/')]],
  [['attendance', dir('src/attendance/')]],
  [['commands', dir('src/commands/')]],
  [['alerts', dir('src/alerts/')]],
  [['doctor', dir('src/doctor/')]],
  // floor 4: doors
  [
    ['api', dir('src/api/')],
    ['push', dir('src/push/')],
    ['bridge', dir('src/bridge/')],
    ['realtime', dir('src/realtime/')],
    ['console', dir('src/console/')],
    ['cli', dir('src/cli/')],
    ['biotime', dir('src/biotime/')],
  ],
  // floor 5: the composition root and its parts
  [['app-parts', dir('src/app/')]],
  [['app', file('src/app.ts')]],
  [['main', file('src/main.ts')]],
  [['cli-entry', file('src/cli.ts')]],
];

const forbidden = [
  { name: 'no-cycle', comment: 'no import cycle between files of src/ or protocols/', severity: 'error', from: {}, to: { circular: true } },
  {
    name: 'no-stray-module',
    comment: 'every module of src/ belongs to a unit of the floor map (src/README.md); add new folders there',
    severity: 'error',
    from: { path: '^src/', pathNot: GROUPS.flat().map(([, p]) => p) },
    to: {},
  },
];
GROUPS.forEach((group, g) => {
  const later = GROUPS.slice(g + 1).flat();
  for (const [name, path] of group) {
    const siblings = group.filter(([other]) => other !== name);
    const above = [...later, ...siblings].map(([, p]) => p);
    if (above.length > 0) {
      forbidden.push({
        name: `floor-${name}`,
        comment: `${name} may import only from itself and from units below it in the floor map (src/README.md)`,
        severity: 'error',
        from: { path },
        to: { path: above },
      });
    }
  }
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^(node_modules|dist|test)/', '^src/console/web/', '^src/floors\\.cjs$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
