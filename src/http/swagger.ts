import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ADMIN_SCHEME, API_KEY_SCHEME } from '../common/http/endpoint.decorator.js';
import { AppConfig } from '../config/app-config.js';

/** The OpenAPI document comes from the controllers and DTOs; it is served at /docs. */
export function setupSwagger(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Payment gateway read API')
    .setDescription(
      'Crypto pair catalog and payment status for merchants, and the operator API that feeds ' +
        'them. Every error is `{"errors":[{type, errorCode, message, field?}]}`. Send `api-version: 1` ' +
        '(optional) and your API key in the `key` header.',
    )
    .setVersion('1')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'key' }, API_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer' }, ADMIN_SCHEME);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    ignoreGlobalPrefix: false,
  });
  SwaggerModule.setup(`${config.contextPath}/docs`, app, document, {
    jsonDocumentUrl: `${config.contextPath}/docs-json`,
    useGlobalPrefix: false,
    swaggerOptions: { persistAuthorization: true },
  });
  return document;
}
