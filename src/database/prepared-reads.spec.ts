import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { CryptoPair } from '../catalog/crypto-pair.entity.js';
import type { AppConfig } from '../config/app-config.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { dataSourceOptions } from '../schema/data-source-options.js';
import { PreparedReads, statementOf } from './prepared-reads.js';

describe('reads built with the query builder, on the read connection (SQLite file)', () => {
  let dir: string;
  let dataSource: DataSource;
  let reads: PreparedReads;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'prepared-reads-'));
    dataSource = new DataSource(dataSourceOptions(`sqlite:${join(dir, 'db.sqlite')}`, 1));
    await dataSource.initialize();
    await dataSource.runMigrations();
    for (const [currencyCode, enabled] of [
      ['BTC', true],
      ['ETH', false],
      ['USDT', true],
    ] as const) {
      await dataSource.getRepository(CryptoPair).insert({
        currencyCode,
        currencyName: currencyCode,
        protocol: 'P',
        countryCode: 'IE',
        enabled,
      });
    }
    await dataSource.getRepository(Merchant).insert({ id: 'm1', name: 'One' });
    reads = new PreparedReads(dataSource, { databasePoolSize: 1 } as AppConfig);
  });
  afterEach(async () => {
    await reads.onApplicationShutdown();
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const pairs = () => {
    const read = reads.of(CryptoPair, 'p', ['id', 'currencyCode', 'enabled']);
    read.query.where('p.countryCode = :countryCode', { countryCode: 'IE' });
    read.query.orderBy('p.currencyCode');
    return read;
  };

  it('reads a page and the count of every match, its values typed as the entity declares them', async () => {
    expect(await pairs().page({ page: 0, size: 2 })).toEqual({
      rows: [
        { id: 1, currencyCode: 'BTC', enabled: true },
        { id: 2, currencyCode: 'ETH', enabled: false },
      ],
      total: 3,
    });
    expect(await pairs().page({ page: 1, size: 2 })).toEqual({
      rows: [{ id: 3, currencyCode: 'USDT', enabled: true }],
      total: 3,
    });
  });

  it('answers a page past the end with no rows and the count', async () => {
    expect(await pairs().page({ page: 7, size: 2 })).toEqual({ rows: [], total: 3 });
  });

  it('reads the same shape again with other values, each answered with its own', async () => {
    await dataSource.getRepository(CryptoPair).insert({
      currencyCode: 'SOL',
      currencyName: 'SOL',
      protocol: 'P',
      countryCode: 'DE',
      enabled: true,
    });
    const inCountry = (countryCode: string) => {
      const read = reads.of(CryptoPair, 'p', ['currencyCode']);
      read.query.where('p.countryCode = :countryCode', { countryCode }).orderBy('p.currencyCode');
      return read;
    };
    expect(await inCountry('IE').page({ page: 1, size: 1 })).toEqual({
      rows: [{ currencyCode: 'ETH' }],
      total: 3,
    });
    expect(await inCountry('DE').page({ page: 0, size: 1 })).toEqual({
      rows: [{ currencyCode: 'SOL' }],
      total: 1,
    });
    expect(await inCountry('IE').rows(1)).toEqual([{ currencyCode: 'BTC' }]);
    expect(await inCountry('DE').rows()).toEqual([{ currencyCode: 'SOL' }]);
  });

  it('reads at most the rows asked for', async () => {
    expect((await pairs().rows(2)).map((pair) => pair.currencyCode)).toEqual(['BTC', 'ETH']);
    expect(await pairs().rows()).toHaveLength(3);
  });

  it('reads dates as dates', async () => {
    const [merchant] = await reads.of(Merchant, 'm', ['id', 'createdAt']).rows();
    expect(merchant.createdAt).toBeInstanceOf(Date);
    expect(Math.abs(merchant.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('binds numbers, so every value asked for is the same statement', async () => {
    const at = (id: number) => {
      const read = reads.of(CryptoPair, 'p', ['id']);
      read.query.where('p.id >= :id', { id });
      return statementOf(read.query);
    };
    const [first, firstParameters] = at(1);
    const [second, secondParameters] = at(3);
    expect(second).toBe(first);
    expect([firstParameters, secondParameters]).toEqual([['1'], ['3']]);
    const read = reads.of(CryptoPair, 'p', ['id']);
    read.query.where('p.id >= :id', { id: 2 });
    expect((await read.rows()).map((pair) => pair.id)).toEqual([2, 3]);
  });
});
