/**
 * Jest transform for ES modules that a CommonJS package require()s (see jest.config.mjs).
 * Imported as ES modules, files pass through unchanged; required, they are compiled to CommonJS
 * with TypeScript, with `import.meta.url` rewritten to its CommonJS equivalent.
 */
const ts = require('typescript');
const { createHash } = require('node:crypto');

module.exports = {
  process(source, path, options) {
    if (options.supportsStaticESM) return { code: source };
    const cjsSource = source.replace(
      /\bimport\.meta\.url\b/g,
      "require('node:url').pathToFileURL(__filename).href",
    );
    const { outputText, sourceMapText } = ts.transpileModule(cjsSource, {
      fileName: path,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        allowJs: true,
        esModuleInterop: true,
        sourceMap: true,
      },
    });
    return { code: outputText, map: sourceMapText };
  },
  getCacheKey(source, path, options) {
    return createHash('sha256')
      .update(source)
      .update(path)
      .update(String(options.supportsStaticESM))
      .update('1')
      .digest('hex');
  },
};
