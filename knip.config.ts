import type { KnipConfig } from 'knip';

/**
 * Unused files, exports and dependencies, found by `npm run lint`. The entry points are every
 * program the project runs: the service, the seed and the quick start, the chain watcher, the
 * scripts, the tests (the Jest plugin finds the spec files) and the benchmarks.
 */
const config: KnipConfig = {
  entry: [
    'src/main.ts',
    'src/seed.ts',
    'src/quick-start.ts',
    'src/watcher.ts',
    // Sent to browsers as they are (the checkout's and the sandbox's pages load them).
    'src/**/public/**/*.js',
    'scripts/*.{mjs,ts}',
    'test/**/*.{ts,mjs,cjs}',
    'bench/**/*.{ts,mjs}',
    'ormconfig.ts',
  ],
  project: [
    'src/**/*.{ts,js}',
    'test/**/*.{ts,mjs,cjs}',
    'bench/**/*.{ts,mjs}',
    'scripts/**/*.{ts,mjs}',
    '*.{ts,mjs}',
  ],
  // A name exported and used in its own file is part of the module's surface (a limit a DTO
  // documents, a type a signature names), not dead code.
  ignoreExportsUsedInFile: true,
  // Started as a program by the watcher's tests and benchmark (node_modules/.bin/anvil), which no
  // import shows.
  ignoreDependencies: ['@foundry-rs/anvil'],
  // System commands: the write-fault tests run chattr and umount as root to make the database's
  // disk fail; the watcher's tests against the gateway make a TLS certificate with openssl
  // (scripts/system-deps.sh checks that it is installed).
  ignoreBinaries: ['chattr', 'umount', 'openssl'],
};

export default config;
