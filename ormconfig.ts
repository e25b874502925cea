/**
 * The DataSource for the TypeORM CLI, built from the same options as the application:
 *   npm run typeorm -- migration:show
 *   npm run typeorm -- migration:run
 *   npm run typeorm -- migration:revert
 * It reads DATABASE_URL like the service does.
 */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config.js';
import { dataSourceOptions } from './src/schema/data-source-options.js';

export default new DataSource(dataSourceOptions(loadConfig().databaseUrl));
