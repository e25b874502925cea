import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The folders of src/ stand in layers (docs/request-lifecycle.md, "Code layout"): a folder imports
 * only folders below it, never one that imports it back, directly or through others. The ground
 * (common, config, logging) imports no feature; database, rate-limits and access know no feature;
 * the HTTP edge knows access and the OpenAPI vocabulary; the features stand above it; schema/
 * lists every feature's entities and the migrations; the wiring (app.module.ts) stands on top. A
 * file at the root of src/ is a layer of its own. This test reads the relative imports of the
 * source (not the specs) and names every import of a loop it finds.
 */

/** An import of one source file by another, in different top-level parts of src/. */
interface Import {
  from: string;
  to: string;
  /** `src/a/x.ts -> src/b/y.ts` */
  line: string;
}

/** Every loop of parts (strongly connected, more than one part), each as its parts. */
function loops(imports: readonly Import[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (part: string): void => {
    index.set(part, counter);
    low.set(part, counter++);
    stack.push(part);
    onStack.add(part);
    for (const other of next.get(part) ?? []) {
      if (!index.has(other)) {
        visit(other);
        low.set(part, Math.min(low.get(part)!, low.get(other)!));
      } else if (onStack.has(other)) {
        low.set(part, Math.min(low.get(part)!, index.get(other)!));
      }
    }
    if (low.get(part) !== index.get(part)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== part);
    if (component.length > 1) found.push(component.sort());
  };
  for (const part of next.keys()) if (!index.has(part)) visit(part);
  return found;
}

/** Jest runs from the project's root. */
const SRC = resolve(process.cwd(), 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The top-level part of src/ a file belongs to: its folder, or the file itself at the root. */
function partOf(path: string): string {
  return relative(SRC, path).split(/[\\/]/)[0];
}

function importsBetweenParts(): Import[] {
  const imports: Import[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      if (!target.startsWith(SRC)) continue;
      const from = partOf(file);
      const to = partOf(target);
      if (from === to) continue;
      const line = `src/${relative(SRC, file)} -> src/${relative(SRC, target)}`;
      imports.push({ from, to, line });
    }
  }
  return imports;
}

describe('layers of src/', () => {
  it('finds a loop and only a loop', () => {
    const edge = (from: string, to: string): Import => ({ from, to, line: `${from} -> ${to}` });
    expect(loops([edge('a', 'b'), edge('b', 'c'), edge('a', 'c')])).toEqual([]);
    expect(loops([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])).toEqual([
      ['a', 'b', 'c'],
    ]);
  });

  it('has no folder that imports, directly or through others, a folder importing it', () => {
    const imports = importsBetweenParts();
    expect(imports.length).toBeGreaterThan(100);
    const report = loops(imports).map((parts) => {
      const inside = imports.filter((i) => parts.includes(i.from) && parts.includes(i.to));
      return `a loop of ${parts.join(', ')}:\n  ${inside.map((i) => i.line).join('\n  ')}`;
    });
    expect(report.join('\n')).toBe('');
  });
});
