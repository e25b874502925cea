import { Controller } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { MAX_PARAMETER_LENGTH, Mapped, RouteCatalog, spells } from './routes.js';

@Controller()
class Lookups {
  @Mapped('GET', 'api/gateway/payment-status/:validationKey')
  lookup(): void {}

  /** Not a route: no declaration. */
  helper(): void {}
}

@Controller()
class Pairs {
  @Mapped('GET', ['api/pairs', '/api/pair'])
  list(): void {}

  @Mapped('POST', 'api/pairs/')
  create(): void {}
}

@Controller()
class Unserved {
  @Mapped('ALL', '/api/*path')
  below(): void {}
}

function catalogOf(contextPath = ''): RouteCatalog {
  const controllers = [Lookups, Pairs, Unserved].map((metatype) => ({
    metatype,
    instance: new metatype(),
  }));
  const discovery = { getControllers: () => controllers } as unknown as DiscoveryService;
  const catalog = new RouteCatalog(discovery, new MetadataScanner(), new Reflector());
  catalog.readRoutes({
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

  it("reads each handler's templates from its declaration, CONTEXT_PATH included", () => {
    expect(lookup).toMatchObject({
      template: '/ctx/api/gateway/payment-status/:validationKey',
      local: '/api/gateway/payment-status/:validationKey',
      catchAll: false,
    });
    expect([pairs.template, pair.template]).toEqual(['/ctx/api/pairs', '/api/pair']);
    expect(catalog.routesOf(Unserved.prototype.below)[0].catchAll).toBe(true);
    expect(catalog.routesOf(Lookups.prototype.helper)).toEqual([]);
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
});
