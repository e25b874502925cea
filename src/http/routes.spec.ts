import { All, Controller, Get, Post } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { MAX_PARAMETER_LENGTH, RouteCatalog, spells } from './routes.js';

@Controller('api/gateway/payment-status')
class Lookups {
  @Get(':validationKey')
  lookup(): void {}
}

@Controller()
class Pairs {
  @Get(['api/pairs', 'api/pair'])
  list(): void {}

  @Post('api/pairs')
  create(): void {}
}

@Controller('api')
class Unserved {
  @All('*path')
  below(): void {}
}

function catalogOf(contextPath = ''): RouteCatalog {
  const controllers = [Lookups, Pairs, Unserved].map((metatype) => ({
    metatype,
    instance: new metatype(),
  }));
  const discovery = { getControllers: () => controllers } as unknown as DiscoveryService;
  const catalog = new RouteCatalog(discovery, new MetadataScanner(), new Reflector());
  catalog.load({
    contextPath,
    atRoot: ['/api/pair'],
    others: ['/docs'],
    words: ['countryCode'],
  });
  return catalog;
}

describe('RouteCatalog', () => {
  const catalog = catalogOf('/ctx');
  const [lookup] = catalog.routesOf(Lookups.prototype.lookup);
  const [pairs, pair] = catalog.routesOf(Pairs.prototype.list);

  // The one place the service reads Nest's route metadata by its keys (docs/decisions.md,
  // "Documented APIs only"): if a release of @nestjs/common moves or renames them, this fails.
  it("reads each handler's templates from Nest's metadata (PATH_METADATA and METHOD_METADATA of @nestjs/common/constants), CONTEXT_PATH included", () => {
    expect(lookup).toMatchObject({
      template: '/ctx/api/gateway/payment-status/:validationKey',
      local: '/api/gateway/payment-status/:validationKey',
      catchAll: false,
    });
    expect([pairs.template, pair.template]).toEqual(['/ctx/api/pairs', '/api/pair']);
    expect(catalog.routesOf(Unserved.prototype.below)[0].catchAll).toBe(true);
  });

  it.each([
    ['/ctx/api/gateway/payment-status/vk_1', true],
    ['/ctx/api/gateway/payment-status/vk%2F1', true],
    ['/ctx/API/gateway/payment-status/vk_1', false],
    ['/ctx/%61pi/gateway/payment-status/vk_1', false],
    ['/ctx/api/gateway/payment-status/vk_1/', false],
    ['/ctx//api/gateway/payment-status/vk_1', false],
    ['/ctx/api/gateway/payment-status/', false],
    ['/ctx/api/gateway/payment-status/%2e%2e', false],
    ['/ctx/api/gateway/payment-status/%E0%A4%A', false],
    [`/ctx/api/gateway/payment-status/${'k'.repeat(MAX_PARAMETER_LENGTH + 1)}`, false],
  ])('%s spells the lookup: %s', (path, expected) => {
    expect(spells(lookup, path.split('/'))).toBe(expected);
  });

  it('lists the methods a path serves as spelled, HEAD wherever GET, never a catch-all', () => {
    expect(catalog.allowed('/ctx/api/pairs')).toEqual(['GET', 'HEAD', 'POST']);
    expect(catalog.allowed('/api/pair')).toEqual(['GET', 'HEAD']);
    expect(catalog.allowed('/ctx/docs')).toEqual(['GET', 'HEAD']);
    expect(catalog.allowed('/ctx/API/pairs')).toEqual([]);
    expect(catalog.allowed('/ctx/api/other')).toEqual([]);
  });

  it('knows the words URLs are spelled with, for the log', () => {
    for (const word of ['ctx', 'api', 'payment-status', 'pairs', 'countryCode']) {
      expect({ word, known: catalog.isRouteWord(word) }).toEqual({ word, known: true });
    }
    expect(catalog.isRouteWord('vk_1')).toBe(false);
    expect(catalog.isRouteWord(':validationKey')).toBe(false);
  });

  it('is below CONTEXT_PATH only as spelled', () => {
    expect(catalog.isBelowPrefix('/ctx/api')).toBe(true);
    expect(catalog.isBelowPrefix('/ctx')).toBe(true);
    expect(catalog.isBelowPrefix('/CTX/api')).toBe(false);
    expect(catalog.isBelowPrefix('/ctxx/api')).toBe(false);
  });
});
