import { jest } from '@jest/globals';
import { PeriodicSweep } from './periodic-sweep.js';

/** A sweep whose runs end when the test says so. */
class ControlledSweep extends PeriodicSweep {
  readonly runs: { now: number; finish: (handled: number) => void }[] = [];

  start(everyMs: number): void {
    this.startEvery(everyMs);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  protected due(now: number): Promise<number> {
    return new Promise((resolve) => this.runs.push({ now, finish: resolve }));
  }
}

describe('PeriodicSweep', () => {
  afterEach(() => jest.useRealTimers());

  it('runs at once, then an interval after the previous run ended, never two at a time', async () => {
    jest.useFakeTimers({ now: 1_000 });
    const sweep = new ControlledSweep();
    sweep.start(5_000);
    expect(sweep.runs).toHaveLength(1);

    // A run that outlasts the interval: no second one meanwhile, and a sweep asked for gets it.
    await jest.advanceTimersByTimeAsync(12_000);
    expect(sweep.runs).toHaveLength(1);
    const asked = sweep.sweep();
    expect(sweep.runs).toHaveLength(1);
    sweep.runs[0].finish(3);
    await expect(asked).resolves.toBe(3);

    await jest.advanceTimersByTimeAsync(4_999);
    expect(sweep.runs).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(sweep.runs).toHaveLength(2);
    expect(sweep.runs[1].now).toBe(1_000 + 12_000 + 5_000);
    sweep.runs[1].finish(0);
    await sweep.beforeApplicationShutdown();
  });

  it('at shutdown waits for the run under way and starts no other', async () => {
    jest.useFakeTimers();
    const sweep = new ControlledSweep();
    sweep.start(1_000);
    let stopped = false;
    const stopping = sweep.beforeApplicationShutdown().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(sweep.isStopped).toBe(true);
    expect(stopped).toBe(false);

    sweep.runs[0].finish(0);
    await stopping;
    await jest.advanceTimersByTimeAsync(10_000);
    expect(sweep.runs).toHaveLength(1);

    sweep.start(1_000);
    expect(sweep.runs).toHaveLength(1);
  });

  it('a run that fails is answered with its failure and the next one still comes', async () => {
    jest.useFakeTimers();
    class Failing extends ControlledSweep {
      protected override due(now: number): Promise<number> {
        return this.runs.length === 0
          ? (this.runs.push({ now, finish: () => undefined }), Promise.reject(new Error('gone')))
          : super.due(now);
      }
    }
    const sweep = new Failing();
    const first = sweep.sweep();
    await expect(first).rejects.toThrow('gone');
    sweep.start(1_000);
    expect(sweep.runs).toHaveLength(2);
    sweep.runs[1].finish(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sweep.runs).toHaveLength(3);
    sweep.runs[2].finish(0);
    await sweep.beforeApplicationShutdown();
  });
});
