import { PROGRESS_LINE_INTERVAL_MS, progressLines } from './seed-progress.js';

/** A clock the test moves by hand. */
function manualClock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('progressLines', () => {
  it('writes nothing for a run shorter than the interval', () => {
    const clock = manualClock();
    const lines: string[] = [];
    const progress = progressLines((line) => lines.push(line), 'f.json', { clock });
    progress.section('paymentSessions');
    progress.bytes(500, 1000);
    progress.records(1000);
    clock.advance(PROGRESS_LINE_INTERVAL_MS - 1);
    progress.records(2000);
    progress.stop();
    expect(lines).toEqual([]);
  });

  it('writes a line at least once an interval: section, records, rate, share of the file, time left', () => {
    const clock = manualClock();
    const lines: string[] = [];
    const progress = progressLines((line) => lines.push(line), 'f.json', {
      clock,
      intervalMs: 5000,
    });
    progress.section('paymentSessions');
    clock.advance(2000);
    progress.bytes(250, 1000);
    progress.records(40_000);
    clock.advance(3000);
    progress.records(100_000);
    progress.bytes(500, 1000);
    clock.advance(5000);
    progress.records(210_000);
    progress.stop();
    expect(lines).toEqual([
      'f.json: paymentSessions: 100,000 records (20,000/s), 25% of the file, about 15 s left',
      'f.json: paymentSessions: 210,000 records (21,000/s), 50% of the file, about 10 s left',
    ]);
  });

  it('keeps writing while no record arrives (a long commit), on a timer', async () => {
    const lines: string[] = [];
    const progress = progressLines((line) => lines.push(line), 'f.json', { intervalMs: 20 });
    progress.section('cryptoPairs');
    progress.records(5);
    // Two lines are due after 40 ms; a busy machine runs the timer later, so wait for them (the
    // deadline only bounds a run where the timer never writes).
    const deadline = Date.now() + 5000;
    while (lines.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    progress.stop();
    const count = lines.length;
    expect(count).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^f\.json: cryptoPairs: 5 records \(\d[\d,]*\/s\), 0% of the file$/);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(lines).toHaveLength(count);
  });

  it('counts the interval from the start of the process, before the first section', () => {
    const clock = manualClock();
    const lines: string[] = [];
    const startedAt = clock.now() - 4000; // the process started 4 s ago (the database, migrations)
    const progress = progressLines((line) => lines.push(line), 'f.json', { clock, startedAt });
    clock.advance(1000);
    progress.bytes(0, 1000);
    progress.stop();
    expect(lines).toEqual(['f.json: starting']);
  });
});
