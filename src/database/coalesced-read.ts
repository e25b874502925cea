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
