import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { openReadConnection, type ReadConnection } from './read-connection.js';

describe('the SQLite read connection', () => {
  let dir: string;
  let dataSource: DataSource;
  let reads: ReadConnection;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'read-connection-'));
    dataSource = await new DataSource({
      type: 'sqlite',
      database: join(dir, 'db.sqlite'),
      enableWAL: true,
    }).initialize();
    await dataSource.query('CREATE TABLE t (name TEXT NOT NULL)');
    await dataSource.query("INSERT INTO t (name) VALUES ('a')");
    reads = await openReadConnection(dataSource, 1);
  });
  afterEach(async () => {
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prepares again a statement that failed to prepare', async () => {
    const sql = 'SELECT name FROM later';
    await expect(reads.all(sql, [])).rejects.toThrow(/no such table: later/);
    await dataSource.query('CREATE TABLE later (name TEXT)');
    await expect(reads.all(sql, [])).resolves.toEqual([]);
    await reads.close();
  });

  it('reads what is committed, through a statement prepared once', async () => {
    const sql = 'SELECT name FROM t WHERE name = ?';
    await expect(reads.all(sql, ['a'])).resolves.toEqual([{ name: 'a' }]);
    await dataSource.query("INSERT INTO t (name) VALUES ('a')");
    await expect(reads.all(sql, ['a'])).resolves.toEqual([{ name: 'a' }, { name: 'a' }]);
    await reads.close();
  });

  it('rejects a statement first asked for once the connection is closed, every time, never hanging', async () => {
    // sqlite3 answers a statement prepared on a closed connection at once, inside `prepare`.
    await reads.close();
    const sql = 'SELECT name FROM t';
    await expect(reads.all(sql, [])).rejects.toThrow(/closed/i);
    await expect(reads.all(sql, [])).rejects.toThrow(/closed/i);
  });
});
