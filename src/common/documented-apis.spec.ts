import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The service uses other packages through their documented APIs only (docs/decisions.md,
 * "Documented APIs only"): an upgrade of Nest, TypeORM, pino, Express or class-transformer must
 * not break it in ways no type checker sees. This test searches the source (not the specs) for
 * the forms such reaches take, and names the file, the line and the internal it found.
 */

interface Rule {
  name: string;
  pattern: RegExp;
  /** A match this says is an entry point the package documents is no finding. */
  documented?: (match: RegExpExecArray) => boolean;
}

/**
 * Modules of packages whose documented API is one module per algorithm: the noble packages'
 * main entry throws ("import submodules instead"), and their README and `exports` map name these
 * (docs/decisions.md, "Documented APIs only").
 */
const SUBPATH_ENTRY_POINTS = [
  '@noble/hashes/sha2.js',
  '@noble/hashes/sha3.js',
  '@noble/curves/secp256k1.js',
];

const RULES: Rule[] = [
  { name: 'a registered symbol (Symbol.for)', pattern: /\bSymbol\.for\s*\(/ },
  { name: "a package's internal symbols (`symbols`)", pattern: /\.symbols\b|\w+Sym\]/ },
  { name: 'an underscore member (`._x`, `["_x"]`)', pattern: /\._[A-Za-z]|\[\s*['"`]_[A-Za-z]/ },
  {
    name: 'a prototype used or patched (`.prototype.`, setPrototypeOf)',
    pattern: /\.prototype\.|\bsetPrototypeOf\s*\(|\.__proto__\b/,
  },
  { name: 'a prototype assigned (`X.prototype = …`)', pattern: /\.prototype\s*=(?!=)/ },
  {
    // Any module below a package's main entry: a package documents its API at its entry, and a
    // file below it (`pkg/cjs/…`, `@scope/pkg/constants.js`) can move in any release.
    name: "a package's file by path (`pkg/cjs/…`, `@scope/pkg/file.js`)",
    pattern:
      /(?:from\s+|require\s*\(\s*|import\s*\(\s*)['"`]((?!node:|\.)(?:@[\w.-]+\/)?[\w.-]+\/[^'"`]+)['"`]/,
    documented: ([, specifier]) => SUBPATH_ENTRY_POINTS.includes(specifier),
  },
  {
    name: 'an object cast to reach a member its type hides (`(x as unknown as { … }).y`)',
    pattern: /as unknown as \{.*\}\s*\)\s*(?:\.|\[)/,
  },
];

/**
 * Exceptions, each with its entry in docs/decisions.md ("Documented APIs only"): the file, the
 * rule, and the text of the line that may match it.
 */
const ALLOWED: { file: string; rule: string; line: RegExp }[] = [
  {
    // Stopping to listen without closing idle connections while draining.
    file: 'src/http/node-server.ts',
    rule: 'a prototype used or patched (`.prototype.`, setPrototypeOf)',
    line: /^\s*NetServer\.prototype\.close\.call\(this\.server\);$/,
  },
  {
    // Node's server builds requests and responses on Express's documented prototypes.
    file: 'src/http/platform.ts',
    rule: 'a prototype assigned (`X.prototype = …`)',
    line: /^\s*Constructor\.prototype = prototype;$/,
  },
];

interface Finding {
  file: string;
  line: number;
  rule: string;
  text: string;
}

/** The code of a line without its comment (a `//` comment, or a line of a block comment). */
function codeOf(line: string): string {
  const trimmed = line.trim();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*') || trimmed.startsWith('//')) return '';
  const comment = line.search(/\s\/\/\s/);
  return comment === -1 ? line : line.slice(0, comment);
}

/** The forbidden forms in one file's text. */
function findInternals(file: string, text: string): Finding[] {
  const findings: Finding[] = [];
  text.split('\n').forEach((raw, index) => {
    const code = codeOf(raw);
    for (const rule of RULES) {
      const match = rule.pattern.exec(code);
      if (!match || rule.documented?.(match)) continue;
      const allowed = ALLOWED.some(
        (entry) => entry.file === file && entry.rule === rule.name && entry.line.test(raw),
      );
      if (!allowed) findings.push({ file, line: index + 1, rule: rule.name, text: raw.trim() });
    }
  });
  return findings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Jest runs from the project's root. */
const ROOT = process.cwd();

describe('documented APIs only', () => {
  it("finds no other package's internals in src/", () => {
    const findings = sourceFiles(join(ROOT, 'src')).flatMap((path) =>
      findInternals(relative(ROOT, path).split('\\').join('/'), readFileSync(path, 'utf8')),
    );
    const report = findings.map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.text}`).join('\n');
    expect(report).toBe('');
  });

  it.each([
    ['const levels = logger[pino.symbols.lsCacheSym];', 'symbols'],
    ["const s = require('class-transformer/cjs/storage');", 'by path'],
    ["import { x } from '@scope/pkg/dist/internal.js';", 'by path'],
    ["import { PATH_METADATA } from '@nestjs/common/constants.js';", 'by path'],
    ['const pool = (ds.driver as unknown as { master: Pool }).master;', 'cast'],
    ['socket._httpMessage.end();', 'underscore'],
    ['Server.prototype.close = function () {};', 'prototype'],
    ['Request.prototype = app.request;', 'prototype assigned'],
    ["const k = Symbol.for('nodejs.rejection');", 'Symbol.for'],
  ])('names %s', (line, word) => {
    const [finding] = findInternals('src/x.ts', `// a comment\n${line}\n`);
    expect(finding).toMatchObject({ file: 'src/x.ts', line: 2 });
    expect(finding.rule).toContain(word === 'cast' ? 'cast' : word);
  });

  it("lets a package's documented module through, and no other file of that package", () => {
    expect(
      findInternals('src/x.ts', "import { keccak_256 } from '@noble/hashes/sha3.js';"),
    ).toEqual([]);
    const [finding] = findInternals(
      'src/x.ts',
      "import { Keccak } from '@noble/hashes/src/sha3.js';",
    );
    expect(finding.rule).toContain('by path');
  });

  it.each(SUBPATH_ENTRY_POINTS)("finds %s in its package's exports map", (specifier) => {
    const [, name, subpath] = /^(@[\w.-]+\/[\w.-]+|[\w.-]+)\/(.+)$/.exec(specifier)!;
    const manifest = JSON.parse(
      readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toContain(`./${subpath}`);
  });

  it('lets an allowed line through only in its file', () => {
    const line = '    NetServer.prototype.close.call(this.server);';
    expect(findInternals('src/http/node-server.ts', line)).toEqual([]);
    expect(findInternals('src/http/other.ts', line)).toHaveLength(1);
  });
});
