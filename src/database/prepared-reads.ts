import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  type EntityMetadata,
  type EntityTarget,
  type ObjectLiteral,
  type SelectQueryBuilder,
} from 'typeorm';
import type { DatabaseKind } from '../config/app-config.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { kindOf, readPoolSize } from './dialect.js';
import { openReadConnection, type ReadConnection } from './read-connection.js';
import { forDatabase } from './sql.js';

type ColumnMetadata = EntityMetadata['columns'][number];

/** Which page of a list: zero-based page number and page size. */
export interface PageRequest {
  page: number;
  size: number;
}

/** One page of a list, and how many records there are in all. */
export interface Page<T> {
  rows: T[];
  total: number;
}

/**
 * The reads made outside transactions, as prepared statements on the read connection (see
 * ReadConnection): each sees every write committed before it started, and nothing that is not
 * committed. Two styles, each for its job:
 *
 * - the lists whose statement depends on what is asked (the catalog's page, the operator's
 *   lists) are built with TypeORM's query builder over an entity (`of`): its columns, their
 *   names and the properties they are read as come from the entity's metadata;
 * - the few fixed statements of the hot paths (a session by key, a key or a token by its hash,
 *   the catalog's revision) are written by hand with `?` placeholders (`all`, `first`,
 *   `byKeys`): docs/decisions.md, "The write path's statements".
 */
@Injectable()
export class PreparedReads implements OnApplicationShutdown {
  private connection?: Promise<ReadConnection>;
  private readonly kind: DatabaseKind;
  /** The statements built for the reads of each shape (see built). */
  private readonly shapes = new Map<string, { sql: string; names: string[] }>();
  /** Reads worth running at once on the database in use (see BatchedReads). */
  readonly concurrency: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.kind = kindOf(dataSource);
    this.concurrency = this.kind === 'postgres' ? readPoolSize(config.databasePoolSize) : 1;
  }

  /** The rows of a statement written with `?` placeholders. */
  async all<T>(sql: string, parameters: readonly unknown[]): Promise<T[]> {
    return (await this.open()).all<T>(forDatabase(this.kind, sql), parameters);
  }

  /** The first row of the statement, or undefined. */
  async first<T>(sql: string, parameters: readonly unknown[]): Promise<T | undefined> {
    return (await this.all<T>(sql, parameters))[0];
  }

  /**
   * The rows of `select` (a statement without WHERE) whose `column` is one of the keys, in one
   * statement: the WHERE clause and the keys' one parameter come from the read connection of the
   * database in use (`inKeys`, `keysParameter`: SqliteReads, PostgresReads or SharedConnectionReads
   * in read-connection.ts, chosen by openReadConnection).
   */
  async byKeys<T>(select: string, column: string, keys: readonly string[]): Promise<T[]> {
    const connection = await this.open();
    return connection.all<T>(
      forDatabase(this.kind, `${select} WHERE ${connection.inKeys(column)}`),
      [connection.keysParameter(keys)],
    );
  }

  /**
   * A read of `entity`'s rows (as `alias` in the query), selecting the columns of `properties`
   * (every column when absent), each as its property's name: add conditions and order to its
   * `query`, then take its rows or a page of them.
   */
  of<E extends ObjectLiteral, P extends keyof E & string>(
    entity: EntityTarget<E>,
    alias: string,
    properties?: readonly P[],
  ): EntityRead<Pick<E, P>> {
    const metadata = this.dataSource.getMetadata(entity);
    const columns = properties
      ? properties.map((property) => columnOf(metadata, property))
      : metadata.columns;
    const query = this.dataSource.createQueryBuilder<E>(entity, alias).select([]);
    for (const column of columns) {
      query.addSelect(`${alias}.${column.propertyName}`, column.propertyName);
    }
    return new EntityRead<Pick<E, P>>(
      query as unknown as SelectQueryBuilder<Pick<E, P>>,
      columns,
      this,
    );
  }

  /** Hydrates a column's value as TypeORM's own reads do: booleans, dates, transformers. */
  hydrated(value: unknown, column: ColumnMetadata): unknown {
    return this.dataSource.driver.prepareHydratedValue(value, column);
  }

  /**
   * Runs the statement `make` builds for a query of this text (its conditions and order, not their
   * values: `shape`), with these named parameters; at most `limit` rows when given. The statement
   * is built once per shape: what it takes to build one costs more than the read of a catalog
   * page itself (a cold burst of them kept every request waiting longer, and kept its objects
   * alive across young collections: see docs/decisions.md, "Reads in one style").
   */
  async built<T>(
    shape: string,
    parameters: ObjectLiteral,
    make: () => SelectQueryBuilder<ObjectLiteral>,
    limit?: number,
  ): Promise<T[]> {
    const [sql, values] = this.statementFor(shape, parameters, make);
    if (limit === undefined) return (await this.open()).all<T>(sql, values);
    const placeholder = this.dataSource.driver.createParameter('limit', values.length);
    return (await this.open()).all<T>(`${sql} LIMIT ${placeholder}`, [...values, String(limit)]);
  }

  /** The rows of a query, at most `limit` when given, its statement kept by its text. */
  rowsOf<T>(query: SelectQueryBuilder<ObjectLiteral>, limit?: number): Promise<T[]> {
    return this.built<T>(`rows ${query.getQuery()}`, query.getParameters(), () => query, limit);
  }

  private statementFor(
    shape: string,
    parameters: ObjectLiteral,
    make: () => SelectQueryBuilder<ObjectLiteral>,
  ): [string, unknown[]] {
    const kept = this.shapes.get(shape);
    if (kept) return [kept.sql, kept.names.map((name) => boundValue(parameters[name]))];
    const query = make();
    const given = Object.entries(query.getParameters());
    // Only text and numbers are bound as they are; any other value is left to TypeORM each time.
    if (!given.every(([, value]) => typeof value === 'string' || typeof value === 'number')) {
      return statementOf(query);
    }
    // Built with each parameter's name for its value, the statement lists its parameters in the
    // order it takes them (a name used twice is there twice on SQLite, once on PostgreSQL).
    const named = query.clone();
    for (const [name] of given) named.setParameter(name, `${NAMED}${name}`);
    const [sql, names] = named.getQueryAndParameters();
    if (!names.every((name) => typeof name === 'string' && name.startsWith(NAMED))) {
      return statementOf(query);
    }
    const statement = { sql, names: names.map((name) => (name as string).slice(NAMED.length)) };
    this.shapes.set(shape, statement);
    return [statement.sql, statement.names.map((name) => boundValue(parameters[name]))];
  }

  private open(): Promise<ReadConnection> {
    if (!this.connection) {
      const opening = openReadConnection(this.dataSource, this.config.databasePoolSize);
      // A connection that could not be opened is tried again by the next read.
      opening.catch(() => {
        if (this.connection === opening) this.connection = undefined;
      });
      this.connection = opening;
    }
    return this.connection;
  }

  async onApplicationShutdown(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await (await connection?.catch(() => undefined))?.close();
  }
}

/**
 * A read over one entity, built with TypeORM's query builder and run as a prepared statement on
 * the read connection: `query` takes the conditions and order; `rows` and `page` run it.
 */
export class EntityRead<T extends ObjectLiteral> {
  constructor(
    readonly query: SelectQueryBuilder<T>,
    private readonly columns: readonly ColumnMetadata[],
    private readonly reads: PreparedReads,
  ) {}

  /** The rows, at most `limit` when given. */
  async rows(limit?: number): Promise<T[]> {
    const query = this.query as unknown as SelectQueryBuilder<ObjectLiteral>;
    const rows = await this.reads.rowsOf<Record<string, unknown>>(query, limit);
    return rows.map((row) => this.hydrate(row));
  }

  /**
   * One page of the rows, and how many there are in all, in one statement, so that both come from
   * the same snapshot. A page past the end is the count's one row with no row of the read.
   */
  async page({ page, size }: PageRequest): Promise<Page<T>> {
    const query = this.query as unknown as SelectQueryBuilder<ObjectLiteral>;
    const parameters = { ...query.getParameters(), readLimit: size, readOffset: page * size };
    const found = await this.reads.built<Record<string, unknown> & { total: number | string }>(
      `page ${query.getQuery()}`,
      parameters,
      () => {
        const count = query.clone().select('COUNT(*)', 'total').orderBy();
        // `listed` tells a row from the count's one row of a page past the end.
        const rows = query.clone().addSelect('1', 'listed');
        return query
          .createQueryBuilder()
          .select('counted.total', 'total')
          .addSelect('paged.*')
          .from(`(${count.getQuery()})`, 'counted')
          .leftJoin(`(${rows.getQuery()} LIMIT :readLimit OFFSET :readOffset)`, 'paged', '1 = 1')
          .setParameters(parameters);
      },
    );
    return {
      rows: found.filter((row) => row.listed !== null).map((row) => this.hydrate(row)),
      total: Number(found[0]?.total ?? 0),
    };
  }

  private hydrate(row: Record<string, unknown>): T {
    const hydrated: Record<string, unknown> = {};
    for (const column of this.columns) {
      hydrated[column.propertyName] = this.reads.hydrated(row[column.propertyName], column);
    }
    return hydrated as T;
  }
}

function columnOf(metadata: EntityMetadata, property: string): ColumnMetadata {
  const column = metadata.findColumnWithPropertyName(property);
  if (!column) throw new Error(`${metadata.name} has no column ${property}`);
  return column;
}

/** A value bound to a built statement: numbers as text (see statementOf). */
function boundValue(value: unknown): unknown {
  return typeof value === 'number' ? String(value) : value;
}

/** What a parameter's value starts with while its statement is built (see PreparedReads.built). */
const NAMED = '\u0000parameter:';

/**
 * The statement of a query and its parameters. TypeORM's SQLite driver writes number parameters
 * into the text of the statement, so every page, limit or time asked for would be a statement of
 * its own, prepared and kept by the read connection once per text. So numbers are bound as text,
 * which both databases compare with the number a column holds: node-postgres sends every
 * parameter as text anyway, and SQLite gives the text the integer affinity of the column it is
 * compared with (LIMIT and OFFSET take the text of an integer as that integer).
 */
export function statementOf<Q extends ObjectLiteral>(
  query: SelectQueryBuilder<Q>,
): [string, unknown[]] {
  const bound = query.clone();
  for (const [name, value] of Object.entries(query.getParameters())) {
    bound.setParameter(name, boundValue(value));
  }
  return bound.getQueryAndParameters();
}
