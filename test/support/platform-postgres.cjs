// The e2e suite on PostgreSQL (a database per application) and Redis, started by
// postgres-global-setup.mjs, on the default platform.
process.env.HTTP_PLATFORM = 'express';
process.env.TEST_DATABASE = 'postgres';
