import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { BlockWriter, type BlockWriterFs } from './log-destination.js';

type Callback = (error: NodeJS.ErrnoException | null, written: number) => void;

/** A file descriptor whose writes the test completes: all of a write, part of it, or EAGAIN. */
class FakeFd implements BlockWriterFs {
  written = '';
  calls: { text: string; done: Callback }[] = [];

  write(_fd: number, buffer: Buffer, offset: number, length: number, done: Callback): void {
    this.calls.push({ text: buffer.toString('utf8', offset, offset + length), done });
  }

  writeSync(_fd: number, buffer: Buffer, offset: number, length: number): number {
    this.written += buffer.toString('utf8', offset, offset + length);
    return length;
  }

  /** Completes the oldest write, taking `bytes` of it (all by default). */
  complete(bytes?: number): void {
    const call = this.calls.shift()!;
    const taken = bytes ?? Buffer.byteLength(call.text);
    this.written += Buffer.from(call.text).subarray(0, taken).toString('utf8');
    call.done(null, taken);
  }

  fail(code: string): void {
    const error = Object.assign(new Error(code), { code });
    this.calls.shift()!.done(error, 0);
  }
}

const line = (n: number) => `{"n":${n},"pad":"${'x'.repeat(20)}"}\n`;

describe('BlockWriter', () => {
  it('writes nothing before a block is gathered, then the block in one write, in order', () => {
    const fd = new FakeFd();
    const writer = new BlockWriter(1, { blockBytes: 100, maxPendingBytes: 10_000, fs: fd });
    writer.write(line(1));
    writer.write(line(2));
    expect(fd.calls).toHaveLength(0);
    writer.write(line(3));
    writer.write(line(4));
    expect(fd.calls).toHaveLength(1);
    // Lines that come while a write is under way wait for it, then go out together.
    for (let n = 5; n <= 9; n++) writer.write(line(n));
    expect(fd.calls).toHaveLength(1);
    fd.complete();
    expect(fd.calls).toHaveLength(1);
    fd.complete();
    expect(fd.written).toBe([1, 2, 3, 4, 5, 6, 7, 8, 9].map(line).join(''));
  });

  it('writes a smaller remainder when flushed (the timer does this)', () => {
    const fd = new FakeFd();
    const writer = new BlockWriter(1, { blockBytes: 1000, maxPendingBytes: 10_000, fs: fd });
    writer.write(line(1));
    writer.flush();
    fd.complete();
    expect(fd.written).toBe(line(1));
    writer.flush();
    expect(fd.calls).toHaveLength(0);
  });

  it('continues a partial write with the rest of the block', () => {
    const fd = new FakeFd();
    const writer = new BlockWriter(1, { blockBytes: 10, maxPendingBytes: 10_000, fs: fd });
    writer.write(line(1) + line(2));
    fd.complete(7);
    fd.complete(5);
    fd.complete();
    expect(fd.written).toBe(line(1) + line(2));
  });

  it('tries a full pipe again (EAGAIN) and loses nothing', async () => {
    const fd = new FakeFd();
    const writer = new BlockWriter(1, { blockBytes: 10, maxPendingBytes: 10_000, fs: fd });
    writer.write(line(1));
    fd.fail('EAGAIN');
    expect(fd.calls).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    fd.complete();
    expect(fd.written).toBe(line(1));
  });

  it('drops and counts newer lines beyond maxPendingBytes while the descriptor is stuck', () => {
    const fd = new FakeFd();
    const size = line(1).length;
    const writer = new BlockWriter(1, { blockBytes: size, maxPendingBytes: 3 * size, fs: fd });
    for (let n = 1; n <= 10; n++) writer.write(line(n));
    // Line 1 is being written; 2, 3 and 4 wait; 5 to 10 did not fit.
    expect(writer.dropped).toBe(6);
    fd.complete();
    fd.complete();
    expect(fd.written).toBe([1, 2, 3, 4].map(line).join(''));
  });

  it('writes what is gathered synchronously at exit', () => {
    const fd = new FakeFd();
    const writer = new BlockWriter(1, { blockBytes: 10_000, maxPendingBytes: 100_000, fs: fd });
    writer.write(line(1));
    writer.write(line(2));
    writer.flushSync();
    expect(fd.written).toBe(line(1) + line(2));
  });

  it('carries pino lines to a real file, multi-byte characters included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'block-writer-'));
    try {
      const file = join(dir, 'log');
      const writer = new BlockWriter(openSync(file, 'a'), {
        blockBytes: 512,
        maxPendingBytes: 1_000_000,
      });
      const logger = pino({ base: null, timestamp: false }, writer);
      for (let n = 0; n < 200; n++) logger.info({ n, text: 'Zürich €' }, 'line');
      await new Promise((resolve) => setTimeout(resolve, 50));
      writer.flushSync();
      const lines = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.n)).toEqual([...Array(200).keys()]);
      expect(lines.every((l) => l.text === 'Zürich €')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
