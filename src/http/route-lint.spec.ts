import { ESLint } from 'eslint';

/**
 * The lint rules that keep every route declared by @Endpoint (eslint.config.mjs): a route
 * decorator of Nest's, a path on a controller or an optional injection is refused where
 * controllers live, before anything runs.
 */
const eslint = new ESLint();

async function messagesFor(code: string, filePath = 'src/example/example.controller.ts') {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.map((m) => `${m.line}:${m.ruleId}`);
}

describe('the route lint rules', () => {
  it('refuses a bare route decorator of Nest', async () => {
    const code = [
      "import { Controller, Get } from '@nestjs/common';",
      '@Controller()',
      'export class Pairs {',
      "  @Get('api/pairs')",
      '  list(): void {}',
      '}',
      '',
    ].join('\n');
    expect(await messagesFor(code)).toEqual(['1:no-restricted-imports', '4:no-restricted-syntax']);
  });

  it.each(['Post', 'Put', 'Patch', 'Delete', 'All', 'Head', 'Options'])(
    'refuses @%s, imported or through a namespace',
    async (name) => {
      const code = [
        "import * as nest from '@nestjs/common';",
        '@nest.Controller()',
        'export class Pairs {',
        `  @nest.${name}()`,
        '  act(): void {}',
        '}',
        '',
      ].join('\n');
      expect(await messagesFor(code)).toContain('4:no-restricted-syntax');
    },
  );

  it('refuses a path on a controller, and a route declared by Mapped outside @Endpoint', async () => {
    const code = [
      "import { Controller } from '@nestjs/common';",
      "import { Mapped } from '../http/routes.js';",
      "@Controller('api')",
      'export class Pairs {',
      "  @Mapped('GET', 'pairs')",
      '  list(): void {}',
      '}',
      '',
    ].join('\n');
    expect(await messagesFor(code)).toEqual(['3:no-restricted-syntax', '5:no-restricted-syntax']);
  });

  it('refuses an optional injection', async () => {
    const code = [
      "import { Injectable, Optional } from '@nestjs/common';",
      '@Injectable()',
      'export class Counter {',
      '  constructor(@Optional() readonly other?: Counter) {}',
      '}',
      '',
    ].join('\n');
    expect(await messagesFor(code, 'src/example/counter.ts')).toEqual(['1:no-restricted-imports']);
  });

  it('accepts a route declared by @Endpoint on a controller without a path', async () => {
    const code = [
      "import { Controller } from '@nestjs/common';",
      "import { Endpoint } from '../http/endpoint.decorator.js';",
      '@Controller()',
      'export class Pairs {',
      "  @Endpoint({ method: 'GET', path: 'api/pairs', access: 'public', operationId: 'listPairs', summary: 'Pairs', responses: [] })",
      '  list(): void {}',
      '}',
      '',
    ].join('\n');
    expect(await messagesFor(code)).toEqual([]);
  });
});
