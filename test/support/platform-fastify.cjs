// The e2e suite on Fastify, each application on a SQLite file of its own.
process.env.HTTP_PLATFORM = 'fastify';
process.env.TEST_DATABASE = 'sqlite';
