import { parentPort, workerData } from 'node:worker_threads';
import { type ReadOptions, SeedFileSyntaxError, readChunks } from './seed-file-structure.js';

/** Chunks handed over and not yet taken: the reading waits beyond this many. */
const AHEAD = 4;

/**
 * The reading of a seed file on a thread of its own (see readSeedFile): posts each chunk's events
 * and waits while the main thread is AHEAD chunks behind.
 */
const { path, options } = workerData as { path: string; options: ReadOptions };
const port = parentPort!;
let unread = 0;
let resume: (() => void) | undefined;
port.on('message', () => {
  unread--;
  resume?.();
  resume = undefined;
});

try {
  for await (const chunk of readChunks(path, options)) {
    port.postMessage({ chunk });
    if (++unread >= AHEAD) await new Promise<void>((resolve) => (resume = resolve));
  }
  port.postMessage({ done: true });
} catch (error) {
  const { message, code } = error as NodeJS.ErrnoException;
  port.postMessage({ error: { message, code, syntax: error instanceof SeedFileSyntaxError } });
}
