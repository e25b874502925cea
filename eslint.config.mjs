import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// DTO parameters are validated by the pipe bound to them (src/common/validation.ts): there is no
// global pipe. Every port is bound: no injection is optional.
const RESTRICTED_IMPORTS = [
  {
    name: 'class-validator',
    importNames: ['IsOptional'],
    message:
      'Use Omittable() (src/common/validators.ts): IsOptional lets a null through unchecked.',
  },
  {
    name: '@nestjs/common',
    importNames: ['Optional'],
    message:
      'Every port is bound: the application provides it, and a spec passes a fake (test/fakes/no-op-ports.ts).',
  },
];
const RESTRICTED_SYNTAX = [
  {
    selector: 'Decorator > CallExpression[callee.name=/^(Body|Query|Param)$/][arguments.length=0]',
    message:
      'Use ValidBody(), ValidQuery() or ValidParams() (src/common/validation.ts): no global pipe validates DTO parameters.',
  },
];

// A route is declared whole by @Endpoint (src/http/endpoint.decorator.ts): method, path, access,
// envelope and documentation. Nest's own route decorators, or a path on the controller, would
// compile and fail only when a request arrives (no access declared, a path the catalog misses).
const ROUTE_DECORATORS = ['Get', 'Post', 'Put', 'Patch', 'Delete', 'All', 'Head', 'Options'];
const ROUTE_MESSAGE =
  'Declare the route with @Endpoint (src/http/endpoint.decorator.ts): it owns the method and the whole path.';
const ROUTE_IMPORTS = [
  {
    name: '@nestjs/common',
    importNames: [...ROUTE_DECORATORS, 'RequestMapping'],
    message: ROUTE_MESSAGE,
  },
];
const ROUTE_SYNTAX = [
  {
    selector: `Decorator > CallExpression[callee.name=/^(${ROUTE_DECORATORS.join('|')}|RequestMapping)$/]`,
    message: ROUTE_MESSAGE,
  },
  {
    selector: `Decorator > CallExpression[callee.property.name=/^(${ROUTE_DECORATORS.join('|')}|RequestMapping)$/]`,
    message: ROUTE_MESSAGE,
  },
  {
    selector: 'Decorator > CallExpression[callee.name="Mapped"]',
    message: ROUTE_MESSAGE,
  },
  {
    selector: 'Decorator > CallExpression[callee.name="Controller"][arguments.length>0]',
    message: `Controllers take no path (\`@Controller()\`): ${ROUTE_MESSAGE}`,
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    // Scripts the service sends to browsers: plain ES2017, no modules, browser globals.
    files: ['src/**/public/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
      },
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [...RESTRICTED_IMPORTS, ...ROUTE_IMPORTS] }],
      'no-restricted-syntax': ['error', ...RESTRICTED_SYNTAX, ...ROUTE_SYNTAX],
    },
  },
  {
    // Where routes meet Nest's router: Mapped (which @Endpoint applies, and which the catalog of
    // routes reads) and the catch-all routes for requests no other route serves.
    files: ['src/http/routes.ts', 'src/http/routes.spec.ts', 'src/http/unserved.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: RESTRICTED_IMPORTS }],
      'no-restricted-syntax': ['error', ...RESTRICTED_SYNTAX],
    },
  },
);
