import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { OperationObject, PathItemObject } from '@nestjs/swagger';
import {
  ADMIN_SCHEME,
  ALIASES_EXTENSION,
  ALIAS_OF_EXTENSION,
  AT_HOST_ROOT_EXTENSION,
  API_KEY_SCHEME,
  DocumentedSetting,
  PathAlias,
  RATE_LIMIT_HEADERS,
  REQUEST_ID_HEADER,
  RETRY_AFTER_HEADER,
  SETTING_PLACEHOLDER,
  setting,
} from './endpoint-docs.js';
import { AppConfig } from '../config/app-config.js';
import { OPENAPI_TAGS } from './openapi-tags.js';

/** The key `npm start` seeds (seeds/demo.json); production refuses to start while it works. */
export const SANDBOX_API_KEY = 'gw_demo_sandbox_key_do_not_use_in_production';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Where the docs page and the OpenAPI document are served, below CONTEXT_PATH. */
export const DOCS_PATHS = { page: '/docs', document: '/docs-json' };

const DESCRIPTION = `
Crypto pair catalog and payment status for merchants, and the operator API that feeds them.

**Calling the API.** Send your API key in the \`key\` header (alias \`x-api-key\`) and, optionally,
\`api-version: 1\` (alias \`x-api-version\`; any other version is a 400 UNSUPPORTED_API_VERSION on
every route). Every answer carries \`${REQUEST_ID_HEADER}\`: the one you sent when usable, else a new UUID.

**Errors.** Every non-2xx answer is \`{"errors":[{type, errorCode, message, field?}]}\`, with
\`type\` VALIDATION or FATAL and \`errorCode\` from a fixed list (the ErrorItemDto schema). Each
operation lists the statuses it can answer and the codes behind each.

- **405 METHOD_NOT_ALLOWED**: a method a documented path does not serve is answered 405 with
  an \`Allow\` header listing the methods the path serves (the operations documented under it,
  and HEAD wherever GET is served). It is not listed under the operations, which are never
  answered 405 themselves.
- **Before routing**: a request that cannot be read at all is answered with the envelope and
  \`Connection: close\`: 400 MALFORMED_REQUEST (malformed request line or headers), 431
  HEADERS_TOO_LARGE, 417 EXPECTATION_FAILED (an \`Expect\` header), 408 REQUEST_TIMEOUT.

**Rate limits.** Merchant routes (\`/api\`) count every request per API key (per address without
a valid key): ${setting('generalLimit')} per ${setting('generalWindowSeconds')} s. Their answers carry
${Object.keys(RATE_LIMIT_HEADERS)
  .map((name) => `\`${name}\``)
  .join(', ')}; a refusal is 429 RATE_LIMITED with \`${RETRY_AFTER_HEADER}\`. The payment status
lookup also blocks a caller after ${setting('notFoundLimit')} lookups that end in 404 within
${setting('notFoundWindowSeconds')} s. Operator routes count only callers without a valid token, per address.

**Try it out** (sandbox, \`npm start\`): the page opens authorized with the demo key
\`${SANDBOX_API_KEY}\` (under apiKey, in **Authorize**); the status lookup offers the demo
sessions as examples.
The operator token is the ADMIN_TOKEN the sandbox prints; this page does not keep it after a reload.
`.trim();

/**
 * The OpenAPI document comes from the controllers and DTOs; it is served at /docs once the
 * application is set up.
 */
export function setupSwagger(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Payment gateway read API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addServer(config.contextPath || '/', 'This deployment')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'key',
        description: `A merchant API key (also accepted in \`x-api-key\`). The sandbox's demo key is \`${SANDBOX_API_KEY}\`.`,
      },
      API_KEY_SCHEME,
    )
    .addSecurity(ADMIN_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      description:
        "An operator's own token (`op_…`, from `POST /admin/operators` or a seed file; its role decides what it opens), " +
        'or the configured ADMIN_TOKEN (the break-glass `root`, every role). Missing, unknown or revoked: 401 with ' +
        '`WWW-Authenticate` (RFC 6750); too small a role: 403 `insufficient_scope`. With no ADMIN_TOKEN configured, ' +
        "only operators' tokens open the operator API, and any other request is a 403.",
    });
  for (const { name, description } of OPENAPI_TAGS) builder.addTag(name, description);
  // Paths are written without CONTEXT_PATH: the server URL carries it.
  const document = SwaggerModule.createDocument(app, builder.build(), {
    ignoreGlobalPrefix: true,
  });
  document.info.license = { name: 'Proprietary' };
  finishDocument(document, config);
  // Before the controllers' routes: Express tries routes in order, and the route for paths no
  // other route serves (src/http/unserved.ts) would answer the docs' paths otherwise.
  SwaggerModule.setup(`${config.contextPath}${DOCS_PATHS.page}`, app, document, {
    jsonDocumentUrl: `${config.contextPath}${DOCS_PATHS.document}`,
    // Only the JSON document: one form of it is enough.
    raw: ['json'],
    useGlobalPrefix: false,
    swaggerOptions: {
      // The operator token stays in this page's memory only, never in the browser's storage.
      persistAuthorization: false,
      displayOperationId: true,
      // The sandbox's page opens authorized with its published demo key (Swagger UI's
      // `authActions.authorize`, which @nestjs/swagger calls with `authAction`).
      ...(config.checkout.sandbox && config.authMode === 'api-key'
        ? {
            authAction: {
              [API_KEY_SCHEME]: {
                name: API_KEY_SCHEME,
                schema: { type: 'apiKey', in: 'header', name: 'key' },
                value: SANDBOX_API_KEY,
              },
            },
          }
        : {}),
    },
  });
  return document;
}

/**
 * What the decorators cannot say: aliases, explicit "no security", this deployment's settings,
 * only the groups it serves.
 */
function finishDocument(document: OpenAPIObject, config: AppConfig): void {
  const used = new Set(
    Object.values(document.paths).flatMap((item: PathItemObject) =>
      HTTP_METHODS.flatMap((method) => item[method]?.tags ?? []),
    ),
  );
  document.tags = document.tags?.filter((tag) => used.has(tag.name));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.security ??= [];
      markAliases(document, path, method, operation);
      const extensions = operation as OperationObject & Record<string, unknown>;
      if (extensions[AT_HOST_ROOT_EXTENSION]) {
        delete extensions[AT_HOST_ROOT_EXTENSION];
        if (config.contextPath) {
          item.servers = [{ url: '/', description: 'The host root, outside CONTEXT_PATH' }];
        }
      }
    }
  }
  const settings: Record<DocumentedSetting, number> = {
    catalogCacheTtlSeconds: config.catalogCacheTtlSeconds,
    generalLimit: config.rateLimit.generalLimit,
    generalWindowSeconds: config.rateLimit.generalWindowSeconds,
    notFoundLimit: config.rateLimit.notFoundLimit,
    notFoundWindowSeconds: config.rateLimit.notFoundWindowSeconds,
  };
  const filled = JSON.parse(
    JSON.stringify(document).replace(SETTING_PLACEHOLDER, (placeholder, name: string) =>
      name in settings ? String(settings[name as DocumentedSetting]) : placeholder,
    ),
  ) as OpenAPIObject;
  Object.assign(document, filled);
}

/** The operation at each alias path gets its own operationId and says whose alias it is. */
function markAliases(
  document: OpenAPIObject,
  path: string,
  method: (typeof HTTP_METHODS)[number],
  operation: OperationObject,
): void {
  const extensions = operation as OperationObject & Record<string, unknown>;
  const aliases = extensions[ALIASES_EXTENSION] as PathAlias[] | undefined;
  if (!aliases) return;
  delete extensions[ALIASES_EXTENSION];
  const alias = aliases.find((a) => `/${a.path}` === path);
  if (!alias) return;
  const canonical = Object.entries(document.paths).find(
    ([other, item]: [string, PathItemObject]) =>
      aliases.every((a) => `/${a.path}` !== other) &&
      item[method]?.operationId === operation.operationId,
  )?.[0];
  Object.assign(operation, {
    [ALIAS_OF_EXTENSION]: operation.operationId,
    operationId: alias.operationId,
    summary: `${operation.summary} (alias of ${operation.operationId})`,
    description:
      `Alias of \`${method.toUpperCase()} ${canonical}\` (${operation.operationId}): the same ` +
      'handler, parameters and answers. Supported; either path may be used.',
  });
}
