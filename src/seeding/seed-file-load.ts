import { parseJsonText } from '../common/http/json-text.js';
import type { FieldError } from '../common/validation.js';
import { rollbackToSavepoint, savepoint } from '../database/batch-statements.js';
import type { Tx } from '../database/transactions.js';
import { SeedCheck, keyOf } from './seed-check.js';
import { SEED_SECTIONS, type SeedSection } from './seed-file.dto.js';
import { SeedFileSyntaxError, readSeedFile, type SeedFileEvent } from './seed-file-reader.js';
import type { SeedProgress } from './seed-progress.js';
import { WRITE_ORDER, type SeedWriter } from './seed-writer.js';

/** Records refused by the checks or by the database; nothing was written. */
export class SeedRejected extends Error {
  constructor(readonly errors: FieldError[]) {
    super(`${errors.length} record(s) refused`);
  }
}

const START = 'seed_file_start';

/** Records checked between two turns of the event loop. */
const YIELD_EVERY = 50;

interface Range {
  start: number;
  end: number;
}

/**
 * One seed file, read once as a stream inside the caller's transaction: each record is checked
 * and, while the file is valid so far, written at once. At the end the checks decide: any bad
 * record throws SeedRejected with every error (the caller rolls back). A file whose sections must
 * be written in another order than they come (merchants after sessions, a section given twice)
 * is written again, from its sections' byte ranges, after the first reading undid its writes.
 */
export class SeedFileLoad {
  private readonly check = new SeedCheck();
  private readonly ranges = new Map<SeedSection, Range>();
  private readonly written: SeedSection[] = [];
  private writing = true;
  private current?: SeedSection;
  private start = 0;
  private index = 0;

  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly tx: Tx,
    private readonly writer: SeedWriter,
    private readonly progress: SeedProgress,
  ) {}

  async run(): Promise<void> {
    await savepoint(this.tx, START);
    const reading = readSeedFile(this.file, {
      sections: SEED_SECTIONS,
      onBytes: (bytes) => this.progress.bytes(bytes, this.size),
    });
    for await (const events of reading) {
      for (const event of events) await this.on(event);
    }
    const errors = await this.check.errors((name, indexes) => this.keysAt(name, indexes));
    if (errors.length > 0) throw new SeedRejected(errors);
    if (!this.writing) {
      await this.writer.abandon();
      await rollbackToSavepoint(this.tx, START);
      for (const name of WRITE_ORDER) await this.writeAgain(name);
    }
    this.writer.summary.cryptoPairs.given = this.check.given('cryptoPairs');
    this.writer.summary.merchants.given = this.check.given('merchants');
    this.writer.summary.operators.given = this.check.given('operators');
  }

  private async on(event: SeedFileEvent): Promise<void> {
    switch (event.kind) {
      case 'root':
        this.check.refuseRoot();
        this.writing = false;
        return;
      case 'section':
        return this.onSection(event.name, event.start);
      case 'records':
        for (const text of event.texts) {
          await this.onRecord(text);
          // Lets the database's answers in between: its next statement waits for them.
          if (this.index % YIELD_EVERY === 0) await new Promise(setImmediate);
        }
        return;
      case 'value':
        return this.check.value(this.current!, parse(event.text, this.current!));
      case 'sectionEnd':
        if (!this.current) return;
        this.ranges.set(this.current, { start: this.start, end: event.end });
        if (this.writing) {
          await this.writer.endSection();
          this.written.push(this.current);
        }
        return;
    }
  }

  private onSection(name: string, start: number): void {
    if (!this.check.section(name)) {
      this.current = undefined;
      return;
    }
    const again = this.ranges.has(name);
    if (again || (name === 'merchants' && this.written.includes('paymentSessions'))) {
      this.writing = false;
    }
    this.current = name;
    this.start = start;
    this.index = 0;
    this.progress.section(name);
  }

  private async onRecord(record: string): Promise<void> {
    const name = this.current!;
    const index = this.index++;
    const checking = this.check.record(name, index, parse(record, name, index));
    const checked = checking instanceof Promise ? await checking : checking;
    if (this.writing && (this.check.failed || this.check.suspectsDuplicates)) this.writing = false;
    if (this.writing && checked.valid) await this.writer.add(name, index, checked.instance);
    this.progress.records(this.index);
  }

  /** Writes the last occurrence of a section again, from its byte range. */
  private async writeAgain(name: SeedSection): Promise<void> {
    const range = this.ranges.get(name);
    if (!range) return;
    this.progress.section(name);
    let index = 0;
    for await (const events of readSeedFile(this.file, {
      sections: SEED_SECTIONS,
      section: { name, ...range },
      onBytes: (bytes) => this.progress.bytes(bytes, range.end - range.start),
    })) {
      for (const event of events) {
        if (event.kind !== 'records') continue;
        for (const record of event.texts) {
          const instance = await this.check.recheck(name, parse(record, name, index));
          await this.writer.add(name, index++, instance);
          this.progress.records(index);
        }
      }
    }
    await this.writer.endSection();
  }

  /** The duplicate keys of earlier records, read again from the section's byte range. */
  private async keysAt(name: SeedSection, indexes: number[]): Promise<Map<number, string>> {
    const wanted = new Set(indexes);
    const keys = new Map<number, string>();
    const range = this.ranges.get(name)!;
    let index = 0;
    for await (const events of readSeedFile(this.file, {
      sections: SEED_SECTIONS,
      section: { name, ...range },
    })) {
      for (const event of events) {
        if (event.kind !== 'records') continue;
        for (const record of event.texts) {
          if (wanted.has(index)) {
            const instance = await this.check.instanceOf(name, parse(record, name, index));
            keys.set(index, keyOf(name, instance)!);
          }
          index++;
        }
      }
    }
    return keys;
  }
}

/**
 * Parses one record or section value as request bodies are parsed (numbers keep their text where
 * it matters, a name given twice is refused); a syntax error names where it is.
 */
function parse(json: string, section: string, index?: number): unknown {
  try {
    return parseJsonText(json);
  } catch (error) {
    const where = index === undefined ? section : `${section}[${index}]`;
    throw new SeedFileSyntaxError(`${(error as Error).message}, in ${where}`);
  }
}
