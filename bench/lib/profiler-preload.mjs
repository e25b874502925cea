/**
 * Preloaded (`node --import`) into the service only when the benchmark profiles it. SIGWINCH (a
 * signal whose default action is to be ignored, and which Nest's shutdown hooks leave alone)
 * starts the V8 CPU profiler; the next SIGWINCH stops it and writes
 * `$BENCH_PROFILE_DIR/<n>.cpuprofile`. So a profile covers one measured run, not the start-up.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
const session = new Session();
session.connect();
let running = false;
let count = 0;

process.on('SIGWINCH', () => {
  if (!running) {
    running = true;
    session.post('Profiler.enable', () => session.post('Profiler.start'));
    return;
  }
  session.post('Profiler.stop', (error, result) => {
    running = false;
    const file = join(dir, `${count++}.cpuprofile`);
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, error ? '{}' : JSON.stringify(result.profile));
    renameSync(tmp, file); // complete files only: the benchmark never reads half a profile
  });
});
