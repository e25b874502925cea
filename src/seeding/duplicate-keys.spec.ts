import { DuplicateKeys } from './duplicate-keys.js';

/** Reads the keys of earlier records from the list, as the seed file would be read again. */
function keysFrom(keys: string[]) {
  return async (indexes: number[]) => new Map(indexes.map((index) => [index, keys[index]]));
}

async function duplicatesOf(keys: string[], set = new DuplicateKeys()) {
  keys.forEach((key, index) => set.add(key, index));
  return set.confirm(keysFrom(keys));
}

describe('DuplicateKeys', () => {
  it('names each repeated key with the first record that had it', async () => {
    expect(await duplicatesOf(['"a"', '"b"', '"a"', '"c"', '"b"', '"a"'])).toEqual([
      { index: 2, first: 0 },
      { index: 4, first: 1 },
      { index: 5, first: 0 },
    ]);
  });

  it('reports nothing, and suspects nothing, for distinct keys past its first growth', async () => {
    const set = new DuplicateKeys();
    const keys = Array.from({ length: 20_000 }, (_, i) => JSON.stringify(`vk_${i}`));
    expect(await duplicatesOf(keys, set)).toEqual([]);
    expect(set.hasSuspects).toBe(false);
  });

  it('tells different keys with the same digest apart by the keys themselves', async () => {
    // Every key gets the same digest: only the exact comparison can decide.
    const set = new DuplicateKeys((_key, into) => into.fill(7));
    const keys = ['"x"', '"y"', '"x"', '"z"', '"y"', '"y"'];
    expect(await duplicatesOf(keys, set)).toEqual([
      { index: 2, first: 0 },
      { index: 4, first: 1 },
      { index: 5, first: 1 },
    ]);
    expect(set.hasSuspects).toBe(true);
  });

  it('reads again only the first records suspects point at', async () => {
    const set = new DuplicateKeys((key, into) => into.fill(key.length));
    ['"aa"', '"bb"', '"cc"', '"aa"'].forEach((key, index) => set.add(key, index));
    const asked: number[][] = [];
    const duplicates = await set.confirm(async (indexes) => {
      asked.push(indexes);
      return new Map(indexes.map((i) => [i, ['"aa"', '"bb"', '"cc"', '"aa"'][i]]));
    });
    expect(asked).toEqual([[0]]);
    expect(duplicates).toEqual([{ index: 3, first: 0 }]);
  });
});
