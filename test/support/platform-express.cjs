// The e2e suite on Express, each application on a SQLite file of its own.
process.env.HTTP_PLATFORM = 'express';
process.env.TEST_DATABASE = 'sqlite';
