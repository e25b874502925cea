import { decodeUtf8 } from '../common/http/json-text.js';
import { TokenParser, TokenType, Tokenizer, type ParsedTokenInfo } from '@streamparser/json';
import { createReadStream } from 'node:fs';

/** What the reader found, in file order. Records of one section are numbered from 0 by the caller. */
export type SeedFileEvent =
  /** A top-level key and where its value starts; known sections are read record by record. */
  | { kind: 'section'; name: string; known: boolean; start: number }
  /** The JSON text of consecutive records of the current known section's list. */
  | { kind: 'records'; texts: string[] }
  /** The whole JSON text of a known section whose value is not a list. */
  | { kind: 'value'; text: string }
  /** The end of the current section's value: [start, end) is its byte range in the file. */
  | { kind: 'sectionEnd'; end: number }
  /** The top-level value is not an object (the file is read to its end all the same). */
  | { kind: 'root'; type: string };

/** The file is not JSON; the message says where, as JSON.parse would. */
export class SeedFileSyntaxError extends Error {}

export interface ReadOptions {
  /** The sections read record by record. */
  sections: readonly string[];
  /** Reads only this byte range, a section's value, as that section's value again. */
  section?: { name: string; start: number; end: number };
}

/** The events of one chunk, and the bytes read so far. */
export interface SeedFileChunk {
  events: SeedFileEvent[];
  bytes: number;
}

const CHUNK_BYTES = 256 * 1024;
const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

/**
 * Reads a seed file as a stream, in bounded memory: @streamparser/json's tokenizer reads every
 * byte and its token parser checks the JSON around the records; each record of a known section
 * is handed over as its own JSON text, for JSON.parse (which checks it) and the record rules.
 * Yields the events of each chunk read.
 */
export async function* readChunks(
  path: string,
  options: ReadOptions,
): AsyncGenerator<SeedFileChunk> {
  const structure = new SeedFileStructure(options.sections);
  const { section } = options;
  const stream = createReadStream(path, {
    highWaterMark: CHUNK_BYTES,
    ...(section ? { start: section.start, end: section.end - 1 } : {}),
  });
  let bytes = 0;
  try {
    if (section) structure.write(Buffer.from(`{${JSON.stringify(section.name)}:`));
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (bytes === 0 && !section) refuseByteOrderMark(chunk);
      bytes += chunk.length;
      structure.write(chunk);
      yield { events: structure.take(), bytes };
    }
    if (section) structure.write(Buffer.from('}'));
    structure.end();
    yield { events: structure.take(), bytes };
  } finally {
    stream.destroy();
  }
}

function refuseByteOrderMark(chunk: Buffer): void {
  if (BYTE_ORDER_MARK.every((byte, i) => chunk[i] === byte)) {
    throw new SeedFileSyntaxError('Unexpected byte order mark at byte 0');
  }
}

/** Where the tokens are: the root object's keys and values, and the records of known lists. */
const enum Place {
  Start,
  RootKey,
  RootColon,
  RootValue,
  RootComma,
  /** Inside a value that is not a record list, or not in a root object. */
  Skipped,
}

/**
 * Follows the tokens of a seed file: which section a token belongs to, and where each record of a
 * known section's list starts and ends. The tokens around records go to the token parser, which
 * checks the JSON; a record's own tokens do not (JSON.parse checks its text), only a stand-in.
 */
class SeedFileStructure {
  private readonly tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024 });
  private readonly parser = new TokenParser({ paths: ['$.*.*'], keepStack: false });
  private readonly known: Set<string>;
  private events: SeedFileEvent[] = [];
  private error?: Error;

  /** Bytes not yet handed over, and the offset of the first of them. */
  private chunks: Buffer[] = [];
  private chunksStart = 0;
  private written = 0;

  private place = Place.Start;
  /** Open brackets inside the current root value: `{` or `[`. */
  private readonly open: number[] = [];
  private lastOffset = 0;
  private sectionName = '';
  private valueStart = -1;
  /** The current section is a known one whose value is a list: its elements are records. */
  private inRecordList = false;
  private captureValue = false;
  private recordStart = -1;
  private recordTexts: string[] = [];

  constructor(sections: readonly string[]) {
    this.known = new Set(sections);
    this.tokenizer.onToken = (token) => this.onToken(token);
    this.tokenizer.onError = (error) => this.fail(error.message);
    this.parser.onValue = () => undefined;
    this.parser.onError = (error) => this.fail(error.message, this.lastOffset);
  }

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.written += chunk.length;
    this.tokenizer.write(chunk);
    this.check();
    this.release();
  }

  end(): void {
    if (!this.tokenizer.isEnded) this.tokenizer.end();
    this.check();
    if (!this.parser.isEnded) throw new SeedFileSyntaxError('Unexpected end of the file');
  }

  take(): SeedFileEvent[] {
    this.flushRecords();
    const events = this.events;
    this.events = [];
    return events;
  }

  private check(): void {
    if (this.error) throw this.error;
  }

  private fail(message: string, offset?: number): void {
    this.error ??= new SeedFileSyntaxError(
      offset === undefined ? message : `${message} at byte ${offset}`,
    );
  }

  private onToken(info: ParsedTokenInfo): void {
    if (this.error) return;
    const { token, offset } = info;
    this.lastOffset = offset;
    if (this.recordStart >= 0 && this.open.length > 1) {
      // Inside a record: only its brackets matter here.
      this.track(token, offset);
      return;
    }
    switch (this.place) {
      case Place.Start:
        if (token === TokenType.LEFT_BRACE) {
          this.place = Place.RootKey;
        } else {
          this.events.push({ kind: 'root', type: rootType(token) });
          this.place = Place.Skipped;
        }
        return this.pass(info);
      case Place.RootKey:
        if (token === TokenType.STRING) {
          this.sectionName = String(info.value);
          this.place = Place.RootColon;
        }
        return this.pass(info);
      case Place.RootColon:
        this.place = Place.RootValue;
        return this.pass(info);
      case Place.RootValue:
        return this.onRootValue(info);
      case Place.RootComma:
        // The token after a section's value: a comma, or the end of the root object.
        this.endValue(offset);
        this.place = token === TokenType.COMMA ? Place.RootKey : Place.Skipped;
        return this.pass(info);
      case Place.Skipped:
        return this.pass(info);
    }
  }

  /** A token of a section's value. */
  private onRootValue(info: ParsedTokenInfo): void {
    const { token, offset } = info;
    if (this.valueStart < 0) {
      const name = this.sectionName;
      const known = this.known.has(name);
      this.valueStart = offset;
      this.inRecordList = known && token === TokenType.LEFT_BRACKET;
      this.captureValue = known && !this.inRecordList;
      this.events.push({ kind: 'section', name, known, start: offset });
    }
    if (this.inRecordList && this.open.length === 1) {
      // Directly inside the list: a record starts, or a separator ends the one before.
      if (token === TokenType.COMMA || token === TokenType.RIGHT_BRACKET) {
        if (this.recordStart >= 0) this.endRecord(offset);
      } else if (this.recordStart < 0) {
        this.recordStart = offset;
        this.parser.write({ token: TokenType.NULL, value: null });
        this.check();
        this.track(token, offset);
        return;
      }
    }
    this.pass(info);
    this.track(token, offset);
    if (this.open.length === 0) this.place = Place.RootComma;
  }

  /** Keeps the brackets of the current root value balanced, as JSON requires. */
  private track(token: TokenType, offset: number): void {
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      this.open.push(token);
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      const opened = this.open.pop();
      const expected =
        token === TokenType.RIGHT_BRACE ? TokenType.LEFT_BRACE : TokenType.LEFT_BRACKET;
      if (opened !== expected) {
        this.fail(`Unexpected ${token === TokenType.RIGHT_BRACE ? "'}'" : "']'"}`, offset);
      }
    }
  }

  private pass(info: ParsedTokenInfo): void {
    this.parser.write(info);
  }

  private endRecord(separator: number): void {
    this.recordTexts.push(this.text(this.recordStart, separator));
    this.recordStart = -1;
  }

  /** The section's value ended before `end` (the next token, so a value's text may end in spaces). */
  private endValue(end: number): void {
    this.flushRecords();
    if (this.captureValue)
      this.events.push({ kind: 'value', text: this.text(this.valueStart, end) });
    this.events.push({ kind: 'sectionEnd', end });
    this.valueStart = -1;
    this.inRecordList = false;
    this.captureValue = false;
  }

  private flushRecords(): void {
    if (this.recordTexts.length === 0) return;
    this.events.push({ kind: 'records', texts: this.recordTexts });
    this.recordTexts = [];
  }

  /** The text of bytes [start, end), which are still held. */
  private text(start: number, end: number): string {
    let base = this.chunksStart;
    const parts: Buffer[] = [];
    for (const chunk of this.chunks) {
      const from = Math.max(start, base);
      const to = Math.min(end, base + chunk.length);
      if (from < to) parts.push(chunk.subarray(from - base, to - base));
      base += chunk.length;
    }
    // Bytes that are not UTF-8 stay visible to the record rules (see decodeUtf8).
    return decodeUtf8(parts.length === 1 ? parts[0] : Buffer.concat(parts));
  }

  /** Drops the chunks no record or captured value still needs. */
  private release(): void {
    const needed = Math.min(
      this.recordStart >= 0 ? this.recordStart : this.written,
      this.captureValue ? this.valueStart : this.written,
    );
    while (this.chunks.length > 0 && this.chunksStart + this.chunks[0].length <= needed) {
      this.chunksStart += this.chunks[0].length;
      this.chunks.shift();
    }
  }
}

function rootType(token: TokenType): string {
  switch (token) {
    case TokenType.LEFT_BRACKET:
      return 'a list';
    case TokenType.STRING:
      return 'a string';
    case TokenType.NUMBER:
      return 'a number';
    case TokenType.NULL:
      return 'null';
    default:
      return 'true or false';
  }
}
