/**
 * Jest in native ESM mode: Nest 12 ships ES modules only.
 *
 * A few CommonJS packages (@nestjs/throttler, for one) require() ES modules. Node >= 20.19
 * does that natively, but Jest's module runtime only does on Node 24.9+; below that, Jest hands a
 * CommonJS require of an ES module to the transform, which compiles those files to CommonJS
 * (only for require(); import keeps them as ES modules).
 */
const requiredEsmPackages = ['@nestjs/common', '@nestjs/core'];

const base = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: ['TS151001'] } },
    ],
    '^.+/node_modules/.+\\.js$': '<rootDir>/test/support/require-esm-transformer.cjs',
  },
  transformIgnorePatterns: [
    `/node_modules/(?!((.*/)?node_modules/)?(${requiredEsmPackages.join('|')})/)`,
  ],
};

/** Specs about SQLite itself (its file, the sandbox, the process on its default database). */
const SQLITE_ONLY = [
  'sqlite-file',
  'quick-start',
  'startup',
  'shutdown',
  'seed',
  'callbacks-process',
  'write-faults',
].map((name) => `/test/${name}\\.e2e-spec\\.ts$`);
/** Express beside Fastify in one spec: run once, by the e2e-express project. */
const BOTH_PLATFORMS = ['/test/parity\\.e2e-spec\\.ts$'];
/** Specs that need PostgreSQL: run by the e2e-postgres and multi-instance projects. */
const POSTGRES_ONLY = [
  '/test/postgres\\.e2e-spec\\.ts$',
  '/test/multi-instance[\\w-]*\\.e2e-spec\\.ts$',
];

/** The end-to-end suite once per HTTP platform: same specs, HTTP_PLATFORM set per project. */
const e2e = (platform) => ({
  ...base,
  displayName: `e2e-${platform}`,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...POSTGRES_ONLY],
  setupFiles: [`<rootDir>/test/support/platform-${platform}.cjs`],
});

export default {
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  maxWorkers: 2,
  // Node does not free ES modules built with `vm`, which is how Jest runs them here, so a worker
  // keeps the modules of every spec file it ran. At the end of the unit specs each of the two
  // workers held about 200 MB of live heap (400-500 MB resident), and freeing that heap when the
  // worker ends took 270-420 ms on a two-core machine: past the 500 ms Jest grants a worker to
  // exit once other processes share the cores, so Jest killed it and printed "A worker process
  // has failed to exit gracefully". No handle was open: the worker reached its 'exit' event 1-2 ms
  // after being told to end. A worker whose heap passes this limit after a spec file is replaced
  // by a fresh one (four times in a unit run); the last workers then end in 100-150 ms.
  // Side effects: a worker replaced this way is stopped with SIGTERM, so a handle left open in it
  // goes unreported (`-i --detectOpenHandles` on the suspect specs finds those); and `-w 1` runs
  // the specs in one worker process instead of in band (`-i` still runs in band).
  workerIdleMemoryLimit: '160MB',
  projects: [
    { ...base, displayName: 'unit', roots: ['<rootDir>/src'], testMatch: ['**/*.spec.ts'] },
    e2e('express'),
    {
      ...e2e('fastify'),
      testPathIgnorePatterns: ['/node_modules/', ...POSTGRES_ONLY, ...BOTH_PLATFORMS],
    },
    {
      // The e2e suite again, on PostgreSQL and Redis (one platform: the default).
      ...e2e('postgres'),
      testPathIgnorePatterns: [
        '/node_modules/',
        ...SQLITE_ONLY,
        POSTGRES_ONLY[1],
        ...BOTH_PLATFORMS,
      ],
      globalSetup: '<rootDir>/test/support/postgres-global-setup.mjs',
      globalTeardown: '<rootDir>/test/support/postgres-global-teardown.mjs',
    },
    {
      // The docs page in headless Chromium (`npm run test:browser`). Its specs do not end in
      // .e2e-spec.ts, so the e2e projects never pick them up.
      ...base,
      displayName: 'browser',
      roots: ['<rootDir>/test/browser'],
      testMatch: ['**/*.browser-spec.ts'],
    },
    {
      // The chain watcher against a real local EVM node (anvil, from npm) and a stand-in for the
      // gateway's two watcher routes. Its specs end in .watcher-spec.ts, so no other project runs
      // them.
      ...base,
      displayName: 'watcher',
      roots: ['<rootDir>/test/watcher'],
      testMatch: ['**/*.watcher-spec.ts'],
    },
    {
      // Two production processes on one PostgreSQL and one Redis of their own.
      ...base,
      displayName: 'multi-instance',
      roots: ['<rootDir>/test'],
      testMatch: ['**/multi-instance*.e2e-spec.ts'],
    },
  ],
};
