import type { DataSource, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { BatchColumn } from './batch-statements.js';

type ColumnMetadata = EntityMetadata['columns'][number];

/**
 * The columns of an entity's properties as its metadata declares them: the names that the
 * hand-written statements (the write path, the hot reads) use are never typed a second time.
 */
export class EntityColumns<E extends ObjectLiteral> {
  private readonly metadata: EntityMetadata;

  constructor(dataSource: DataSource, entity: EntityTarget<E>) {
    this.metadata = dataSource.getMetadata(entity);
  }

  /** The table's name. */
  get table(): string {
    return this.metadata.tableName;
  }

  /** The column of a property. */
  name(property: keyof E & string): string {
    return this.column(property).databaseName;
  }

  /** `column AS "property", …`: the columns of `properties` read as their properties' names. */
  selectList(properties: readonly (keyof E & string)[], alias?: string): string {
    return properties
      .map((property) => {
        const name = this.name(property);
        const column = alias ? `${alias}.${name}` : name;
        return name === property && !alias ? name : `${column} AS "${property}"`;
      })
      .join(', ');
  }

  /** `SELECT <selectList> FROM <table>`. */
  select(properties: readonly (keyof E & string)[]): string {
    return `SELECT ${this.selectList(properties)} FROM ${this.table}`;
  }

  /** The columns of `properties` as the batch statements write them (src/database/batch-statements.ts). */
  batch(properties: readonly (keyof E & string)[]): BatchColumn[] {
    return properties.map((property) => {
      const column = this.column(property);
      return { name: column.databaseName, type: batchTypeOf(column) };
    });
  }

  private column(property: string): ColumnMetadata {
    const column = this.metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${this.metadata.name} has no column ${property}`);
    return column;
  }
}

/** How a batch statement reads a column's value out of its JSON rows. */
function batchTypeOf(column: ColumnMetadata): BatchColumn['type'] {
  switch (column.type) {
    case 'varchar':
    case 'text':
      return 'text';
    case 'integer':
      return 'integer';
    case 'bigint':
      return 'bigint';
    case 'boolean':
      return 'boolean';
    default:
      throw new Error(`${column.propertyName}: no batch type for ${String(column.type)}`);
  }
}
