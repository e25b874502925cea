import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  type ReadOptions,
  type SeedFileChunk,
  type SeedFileEvent,
  SeedFileSyntaxError,
  readChunks,
} from './seed-file-structure.js';

export { SeedFileSyntaxError, type SeedFileEvent } from './seed-file-structure.js';

/**
 * The reading thread's heap. It holds a few chunks and the tokenizer's strings, all short-lived;
 * a small young generation keeps its memory small.
 */
const READER_LIMITS = { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 96 };

const WORKER = new URL('./seed-file-worker.js', import.meta.url);

/**
 * Reads a seed file as a stream (see readChunks): on a thread of its own when the compiled
 * worker is there (the built service), so that tokenizing every byte runs beside the checks and
 * writes of the main thread; in this thread otherwise (the TypeScript sources under test).
 */
export async function* readSeedFile(
  path: string,
  options: ReadOptions & { onBytes?: (bytes: number) => void },
): AsyncGenerator<SeedFileEvent[]> {
  const { onBytes, ...readOptions } = options;
  const chunks = existsSync(fileURLToPath(WORKER))
    ? readOnThread(path, readOptions)
    : readChunks(path, readOptions);
  for await (const { events, bytes } of chunks) {
    onBytes?.(bytes);
    if (events.length > 0) yield events;
  }
}

type Message =
  | { chunk: SeedFileChunk }
  | { done: true }
  | { error: { message: string; code?: string; syntax: boolean } };

async function* readOnThread(path: string, options: ReadOptions): AsyncGenerator<SeedFileChunk> {
  const worker = new Worker(WORKER, {
    workerData: { path, options },
    resourceLimits: READER_LIMITS,
  });
  const received: Message[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const arrived = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: Message) => {
    received.push(message);
    arrived();
  });
  worker.on('error', (error) => {
    failure = error;
    arrived();
  });
  try {
    for (;;) {
      if (received.length === 0 && !failure) await new Promise<void>((r) => (wake = r));
      if (failure) throw failure;
      const message = received.shift()!;
      if ('done' in message) return;
      if ('error' in message) throw readError(message.error);
      worker.postMessage('taken');
      yield message.chunk;
    }
  } finally {
    await worker.terminate();
  }
}

function readError({ message, code, syntax }: { message: string; code?: string; syntax: boolean }) {
  if (syntax) return new SeedFileSyntaxError(message);
  return Object.assign(new Error(message), { code });
}
