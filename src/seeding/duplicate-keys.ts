/** A record whose key has the digest of an earlier record's key: a duplicate, unless they differ. */
export interface Suspect {
  index: number;
  key: string;
  /** The first record seen with the same digest. */
  first: number;
}

/** A record whose key is that of an earlier one. */
export interface Duplicate {
  index: number;
  first: number;
}

const INITIAL_SLOTS = 1 << 12;

/**
 * Finds the records of a section whose key an earlier record has, among up to millions, in
 * bounded memory: each key is kept as a 64-bit digest and the index of its first record (12 bytes
 * a slot, open addressing in typed arrays), not as a string. Equal digests make a record a suspect;
 * `confirm` then compares the keys themselves, so two different keys are never reported.
 */
export class DuplicateKeys {
  private high = new Uint32Array(INITIAL_SLOTS);
  private low = new Uint32Array(INITIAL_SLOTS);
  /** Index of the first record plus one; 0 is an empty slot. */
  private firsts = new Int32Array(INITIAL_SLOTS);
  private count = 0;
  private readonly suspects: Suspect[] = [];

  constructor(private readonly digest: (key: string, into: Uint32Array) => void = fnvDigest) {}

  /** Adds the key of record `index` (records in increasing order); true when it is a suspect. */
  add(key: string, index: number): boolean {
    this.digest(key, DIGEST);
    const slot = this.slotOf(DIGEST[0], DIGEST[1]);
    if (this.firsts[slot] !== 0) {
      this.suspects.push({ index, key, first: this.firsts[slot] - 1 });
      return true;
    }
    this.high[slot] = DIGEST[0];
    this.low[slot] = DIGEST[1];
    this.firsts[slot] = index + 1;
    if (++this.count * 2 > this.firsts.length) this.grow();
    return false;
  }

  /** True when some record may repeat an earlier key (confirm tells for sure). */
  get hasSuspects(): boolean {
    return this.suspects.length > 0;
  }

  /**
   * The records that repeat an earlier record's key, each with the first record of that key.
   * `keysOf` gives the keys of the earlier records the suspects point at (read again from the
   * file: they were not kept).
   */
  async confirm(keysOf: (indexes: number[]) => Promise<Map<number, string>>): Promise<Duplicate[]> {
    if (this.suspects.length === 0) return [];
    const firstKeys = await keysOf([...new Set(this.suspects.map((s) => s.first))]);
    // Per digest: the distinct keys met so far, with their first record.
    const seen = new Map<number, { key: string; index: number }[]>();
    const duplicates: Duplicate[] = [];
    for (const suspect of this.suspects) {
      let keys = seen.get(suspect.first);
      if (!keys) {
        keys = [{ key: firstKeys.get(suspect.first)!, index: suspect.first }];
        seen.set(suspect.first, keys);
      }
      const earlier = keys.find((k) => k.key === suspect.key);
      if (earlier) duplicates.push({ index: suspect.index, first: earlier.index });
      else keys.push({ key: suspect.key, index: suspect.index });
    }
    return duplicates;
  }

  private slotOf(high: number, low: number): number {
    const mask = this.firsts.length - 1;
    let slot = (high ^ Math.imul(low, 0x9e3779b1)) & mask;
    while (this.firsts[slot] !== 0 && (this.high[slot] !== high || this.low[slot] !== low)) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  private grow(): void {
    const { high, low, firsts } = this;
    this.high = new Uint32Array(firsts.length * 2);
    this.low = new Uint32Array(firsts.length * 2);
    this.firsts = new Int32Array(firsts.length * 2);
    for (let i = 0; i < firsts.length; i++) {
      if (firsts[i] === 0) continue;
      const slot = this.slotOf(high[i], low[i]);
      this.high[slot] = high[i];
      this.low[slot] = low[i];
      this.firsts[slot] = firsts[i];
    }
  }
}

/** The last digest computed, as two 32-bit halves (no allocation per key). */
const DIGEST = new Uint32Array(2);

/** Two independent 32-bit FNV-1a style hashes of the key's UTF-16 code units. */
function fnvDigest(key: string, into: Uint32Array): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 13;
  }
  into[0] = a;
  into[1] = b ^ key.length;
}
