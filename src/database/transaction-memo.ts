/** What a TransactionMemo keeps under one name; `T` is the type of the value. */
export class MemoKey<T> {
  /** Only for the type checker: ties the key to the type of its value. */
  declare private readonly valueType?: T;

  constructor(readonly name: string) {}
}

/**
 * What the units of one SQLite group transaction (SqliteGroupCommit) learned from the database,
 * kept so that the units after them in the same transaction need not read it again: the group
 * began with BEGIN IMMEDIATE, so no other connection writes until it ends, and what the group's
 * own statements wrote is known. It is true only as long as none of those writes was undone, so
 * the group forgets everything kept whenever a unit is rolled back to its savepoint, and when the
 * group ends (committed or rolled back). A value is kept only once the statement that makes it
 * true has succeeded. PostgreSQL's transactions have no memo (see memoOf).
 */
export class TransactionMemo {
  private readonly values = new Map<MemoKey<unknown>, unknown>();

  get<T>(key: MemoKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set<T>(key: MemoKey<T>, value: T): void {
    this.values.set(key, value);
  }

  delete(key: MemoKey<unknown>): void {
    this.values.delete(key);
  }

  /** Forgets every value: some write of the transaction was undone, or the transaction ended. */
  forget(): void {
    this.values.clear();
  }
}
