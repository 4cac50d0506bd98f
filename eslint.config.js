// Lint rules that keep the code honest: promises are awaited, switches are
// exhaustive, and every third-party package has exactly one door (DESIGN.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const door = (name, where) => ({ name, message: `${name} may only be imported in ${where} (one-door rule, DESIGN.md)` });
const doors = {
  uws: { paths: [door('uWebSockets.js', 'src/http/')] },
  mongodb: { paths: [door('mongodb', 'src/store/mongo/')] },
  sqlite: { paths: [door('better-sqlite3', 'src/store/sqlite/')] },
  mqtt: { paths: [door('aedes', 'src/bridge/mqtt/'), door('mqtt', 'src/bridge/mqtt/')] },
  pino: { paths: [door('pino', 'src/log.ts'), door('pino-pretty', 'src/log.ts')] },
  tar: { paths: [door('tar-stream', 'src/devices/packed.ts')] },
  charset: { paths: [door('iconv-lite', 'src/charset.ts')] },
  cli: { paths: [door('commander', 'src/cli/ and src/simulator/')] },
  csvOut: { paths: [door('csv-stringify', 'src/csv-out.ts'), door('csv-stringify/sync', 'src/csv-out.ts')] },
  prom: { paths: [door('prom-client', 'src/ops/metrics.ts')] },
  csvIn: { paths: [door('csv-parse', 'src/csv-table.ts'), door('csv-parse/sync', 'src/csv-table.ts')] },
  webhooks: { paths: [door('standardwebhooks', 'src/webhooks/sign.ts')] },
  preact: { paths: [door('preact', 'src/console/web/'), door('preact/hooks', 'src/console/web/')] },
  esbuild: { paths: [door('esbuild', 'src/console/web/build.mjs')] },
  ws: { paths: [door('ws', 'src/http/node-websocket.ts')] },
};
const restrictAllBut = (...allowed) => {
  const paths = Object.entries(doors)
    .filter(([k]) => !allowed.includes(k))
    .flatMap(([, v]) => v.paths);
  return [
    'error',
    {
      paths,
      patterns: [
        {
          group: ['**/store/sqlite/*', '**/store/mongo/*'],
          message: 'adapters are reached only through the store ports (src/store/types.ts) handed in by app.ts',
        },
      ],
    },
  ];
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.tap/**',
      'eslint.config.js',
      'src/floors.cjs',
      'test/coverage-check.mjs',
      'test/mongo-api-leg.mjs',
      'test/node-engine-leg.mjs',
      'test/node-lts-leg.mjs',
      'deploy/test-mongo/target/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': restrictAllBut(),
    },
  },
  { files: ['src/http/**/*.ts'], rules: { 'no-restricted-imports': restrictAllBut('uws') } },
  { files: ['src/http/node-websocket.ts'], rules: { 'no-restricted-imports': restrictAllBut('uws', 'ws') } },
  {
    files: ['src/store/sqlite/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: Object.entries(doors)
            .filter(([k]) => k !== 'sqlite')
            .flatMap(([, v]) => v.paths),
        },
      ],
    },
  },
  {
    files: ['src/store/mongo/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: Object.entries(doors)
            .filter(([k]) => k !== 'mongodb')
            .flatMap(([, v]) => v.paths),
        },
      ],
    },
  },
  { files: ['src/bridge/mqtt/**/*.ts'], rules: { 'no-restricted-imports': restrictAllBut('mqtt') } },
  { files: ['src/log.ts'], rules: { 'no-restricted-imports': restrictAllBut('pino') } },
  { files: ['src/devices/packed.ts'], rules: { 'no-restricted-imports': restrictAllBut('tar') } },
  { files: ['src/charset.ts'], rules: { 'no-restricted-imports': restrictAllBut('charset') } },
  { files: ['src/cli/**/*.ts'], rules: { 'no-restricted-imports': restrictAllBut('cli') } },
  { files: ['src/csv-out.ts'], rules: { 'no-restricted-imports': restrictAllBut('csvOut') } },
  { files: ['src/ops/metrics.ts'], rules: { 'no-restricted-imports': restrictAllBut('prom') } },
  { files: ['src/csv-table.ts'], rules: { 'no-restricted-imports': restrictAllBut('csvIn') } },
  { files: ['src/webhooks/sign.ts'], rules: { 'no-restricted-imports': restrictAllBut('webhooks') } },
  {
    // tests may open any adapter directly (the contract suite does), but never uWS
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: doors.uws.paths }],
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: '@tapjs/test', name: ['test', 'before', 'after', 'beforeEach', 'afterEach', 'teardown'] },
            { from: 'package', package: 'tap', name: ['test', 'before', 'after', 'teardown'] },
          ],
        },
      ],
    },
  },
  // The console (issue #17): browser code with its own tsconfig (DOM, Preact JSX), found by the project service.
  { files: ['src/console/web/src/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': restrictAllBut('preact') } },
  // Its build script is plain Node ESM outside any tsconfig: linted without type information.
  {
    files: ['src/console/web/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly' } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-restricted-imports': restrictAllBut('esbuild') },
  },
  {
    files: ['protocols/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/src/**', '../src/*', '../../src/*'], message: 'protocols/ is pure: nothing from src/' }],
          paths: Object.values(doors).flatMap((d) => d.paths),
        },
      ],
    },
  },
  {
    files: ['src/simulator/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/protocols/**', '../*', '!./*'],
              message: 'the simulator speaks the protocol on its own: it imports nothing from protocols/ or the rest of src/',
            },
          ],
        },
      ],
    },
  },
);
