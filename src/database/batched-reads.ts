import DataLoader from 'dataloader';

export interface BatchOptions {
  /** Keys read by one statement at most. */
  maxBatch: number;
  /** Statements under way at once at most (one on SQLite's single connection). */
  concurrency: number;
}

/**
 * Reads the keys of concurrent lookups with one statement per batch: DataLoader gathers the keys
 * (without its memo cache: every lookup is read), and this class decides when a batch starts.
 * While `concurrency` batches are under way, new keys wait and go together in the next batch,
 * which starts as soon as one of them ends; otherwise a batch starts after the requests that
 * arrived in the same turn of the event loop. So under load one statement serves many lookups,
 * and a lookup only ever joins a batch that starts after it arrived: it sees every write committed
 * before it arrived (docs/operations.md, "Several instances").
 */
export class BatchedReads<V> {
  private readonly loader: DataLoader<string, V | undefined>;
  private free: number;
  /** Batches waiting for a free slot, oldest first. */
  private readonly waiting: (() => void)[] = [];

  /**
   * @param readKeys the owner's one statement for a batch of keys, by key (for the status lookup:
   *   TypeOrmPaymentSessionRepository.readSessions)
   */
  constructor(
    private readonly readKeys: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
    options: BatchOptions,
  ) {
    this.free = options.concurrency;
    this.loader = new DataLoader<string, V | undefined>(this.readBatch, {
      cache: false,
      maxBatchSize: options.maxBatch,
      batchScheduleFn: (dispatch) => this.schedule(dispatch),
    });
  }

  /** One batch: the keys DataLoader gathered, read by readKeys, each given its value. */
  private readonly readBatch = async (keys: readonly string[]): Promise<(V | undefined)[]> => {
    try {
      const found = await this.readKeys(keys);
      return keys.map((key) => found.get(key));
    } finally {
      this.release();
    }
  };

  /** The value of the key, undefined when there is none. */
  read(key: string): Promise<V | undefined> {
    return this.loader.load(key);
  }

  private schedule(dispatch: () => void): void {
    if (this.free === 0) {
      this.waiting.push(dispatch);
      return;
    }
    this.free--;
    // After the I/O callbacks of this turn: the lookups they start join the batch.
    setImmediate(dispatch);
  }

  /** A batch ended: the oldest waiting batch takes its slot at once. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
