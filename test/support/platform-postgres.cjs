// The e2e suite on PostgreSQL (a database per application) and Redis, started by
// postgres-global-setup.mjs, on the default platform.
process.env.HTTP_PLATFORM = 'express';
process.env.TEST_DATABASE = 'postgres';
// An application started with REDIS_URL imports the rate limits' Redis store
// (src/rate-limits/redis-rate-limit-store.ts) while it starts. Its CommonJS packages require
// @nestjs/common and @nestjs/throttler, which Jest compiles for require()
// (require-esm-transformer.cjs): about 1.5 s with a cold cache, during which the event loop does
// not run, so the application's first PostgreSQL connection passed its 1.5 s connect timeout and
// the first spec of a fresh clone failed to start. Required here, before any application starts.
require('@nest-lab/throttler-storage-redis');
