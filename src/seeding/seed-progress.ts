import { MultiBar, type SingleBar } from 'cli-progress';

/** What a seed run tells about its progress while it reads a file. */
export interface SeedProgress {
  /** A section starts (again, when the file is written in a second reading). */
  section(name: string): void;
  /** Records of the current section read so far. */
  records(count: number): void;
  /** Bytes read so far, of `total` to read in this reading. */
  bytes(done: number, total: number): void;
  /** The reading is over; the final summary follows. */
  stop(): void;
}

/** No progress at all (tests, the quick start, in-memory seeds). */
export const SILENT_PROGRESS: SeedProgress = {
  section: () => undefined,
  records: () => undefined,
  bytes: () => undefined,
  stop: () => undefined,
};

/**
 * How often the plain lines report while a run lasts: every 4 s, so that no 5 s ever pass
 * without one, whatever a busy event loop delays.
 */
export const PROGRESS_LINE_INTERVAL_MS = 4000;

interface Clock {
  now(): number;
}

/** The state both renderings show: the current section's records and rate, the file's bytes. */
class ProgressState {
  name?: string;
  count = 0;
  sectionStartedAt = 0;
  done = 0;
  total = 0;
  readonly startedAt: number;

  constructor(private readonly clock: Clock) {
    this.startedAt = clock.now();
  }

  /** Records a second of the current section. */
  get rate(): number {
    const seconds = (this.clock.now() - this.sectionStartedAt) / 1000;
    return seconds > 0 ? this.count / seconds : 0;
  }

  /** Seconds left at the rate the file has been read so far; undefined before it can tell. */
  get secondsLeft(): number | undefined {
    const seconds = (this.clock.now() - this.startedAt) / 1000;
    if (this.done === 0 || seconds <= 0 || this.total === 0) return undefined;
    return Math.max(0, ((this.total - this.done) / this.done) * seconds);
  }
}

interface LineOptions {
  intervalMs?: number;
  clock?: Clock;
  /** When the run began (the process's start): the first line is due an interval after it. */
  startedAt?: number;
}

/**
 * Progress for logs and CI, where nothing can be redrawn: one plain line per interval while the
 * run lasts (none for a run shorter than that), e.g.
 * `seeds/big.json: paymentSessions: 412,000 records (58,000/s), 45% of the file, about 9 s left`.
 */
export function progressLines(
  write: (line: string) => void,
  file: string,
  options: LineOptions = {},
): SeedProgress {
  const { intervalMs = PROGRESS_LINE_INTERVAL_MS, clock = Date } = options;
  const state = new ProgressState(clock);
  let lastLine = Math.min(options.startedAt ?? clock.now(), clock.now());
  const report = () => {
    lastLine = clock.now();
    if (state.name === undefined) {
      write(`${file}: starting`);
      return;
    }
    const share = state.total > 0 ? Math.floor((state.done / state.total) * 100) : 0;
    const left = state.secondsLeft;
    write(
      `${file}: ${state.name}: ${number(state.count)} records (${number(state.rate)}/s), ` +
        `${share}% of the file` +
        (left === undefined ? '' : `, about ${Math.ceil(left)} s left`),
    );
  };
  // Also while no record arrives (a long commit): the run must never look hung.
  const timer = setInterval(
    () => {
      if (clock.now() - lastLine >= intervalMs) report();
    },
    Math.max(10, Math.min(intervalMs / 4, 250)),
  );
  timer.unref();
  const due = () => {
    if (clock.now() - lastLine >= intervalMs) report();
  };
  return {
    section(name) {
      state.name = name;
      state.count = 0;
      state.sectionStartedAt = clock.now();
      due();
    },
    records(count) {
      state.count = count;
      due();
    },
    bytes(done, total) {
      state.done = done;
      state.total = total;
      due();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * Progress on a terminal: a bar per section (cli-progress), filled as the file is read, with its
 * records, their rate and the time left.
 */
export function progressBars(stream: NodeJS.WriteStream): SeedProgress {
  const bars = new MultiBar({
    stream,
    format: '{section} [{bar}] {percentage}% | {records} records | {rate}/s | {eta_formatted} left',
    barsize: 30,
    hideCursor: true,
    clearOnComplete: false,
    etaBuffer: 50,
    fps: 5,
  });
  const state = new ProgressState(Date);
  let bar: SingleBar | undefined;
  const payload = () => ({
    section: (state.name ?? '').padEnd(15),
    records: number(state.count),
    rate: number(state.rate),
  });
  return {
    section(name) {
      if (bar) bar.update(bar.getTotal(), payload());
      state.name = name;
      state.count = 0;
      state.sectionStartedAt = Date.now();
      bar = bars.create(Math.max(state.total, 1), state.done, payload());
    },
    records(count) {
      state.count = count;
    },
    bytes(done, total) {
      state.done = done;
      state.total = total;
      bar?.setTotal(Math.max(total, 1));
      bar?.update(done, payload());
    },
    stop() {
      if (bar) bar.update(bar.getTotal(), payload());
      bars.stop();
    },
  };
}

function number(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
