/**
 * Shares one read between the calls that arrive while it is pending, but never hands a caller a
 * read that started before the call: those wait for the next read, which starts as soon as the
 * pending one ends. Under load, one query serves a whole batch of requests, and each still sees
 * every write committed before it arrived.
 */
export class CoalescedRead<T> {
  private pending?: Promise<T>;
  private next?: Promise<T>;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.pending) return this.start();
    this.next ??= this.pending.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  /** No read pending and none queued. */
  get idle(): boolean {
    return !this.pending && !this.next;
  }

  private startNext(): Promise<T> {
    this.next = undefined;
    return this.start();
  }

  private start(): Promise<T> {
    const read = this.read();
    this.pending = read;
    const clear = () => {
      if (this.pending === read) this.pending = undefined;
    };
    read.then(clear, clear);
    return read;
  }
}

/**
 * One {@link CoalescedRead} per key, for reads that depend on a key (a session by its validation
 * key): concurrent lookups of the same key share a read under the same rule, lookups of different
 * keys never wait for each other. A key is forgotten as soon as nothing is pending for it, so the
 * map holds at most the keys of the requests in flight.
 */
export class CoalescedReads<K, T> {
  private readonly byKey = new Map<K, CoalescedRead<T>>();

  constructor(private readonly read: (key: K) => Promise<T>) {}

  get(key: K): Promise<T> {
    let reads = this.byKey.get(key);
    if (!reads) {
      reads = new CoalescedRead(() => this.read(key));
      this.byKey.set(key, reads);
    }
    const result = reads.get();
    const forget = () => {
      if (reads.idle && this.byKey.get(key) === reads) this.byKey.delete(key);
    };
    result.then(forget, forget);
    return result;
  }

  /** Keys with a read pending or queued. */
  get size(): number {
    return this.byKey.size;
  }
}
