import type { OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_SCHEME, API_KEY_SCHEME } from './endpoint.decorator.js';
import { MAX_PARAMETER_LENGTH, RouteTable } from './route-table.js';

const merchant = { security: [{ [API_KEY_SCHEME]: [] }] };
const operator = { security: [{ [ADMIN_SCHEME]: [] }] };
const open = { security: [] };
const DOCS = { page: '/docs', document: '/docs-json' };

function tableOf(contextPath = ''): RouteTable {
  const document = {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/api/things': {
        get: { ...merchant, parameters: [{ name: 'countryCode', in: 'query' }] },
      },
      '/api/gateway/payment-status/{validationKey}': { get: merchant },
      '/admin/things/{id}': { put: operator, delete: operator },
      '/admin/things/{id}/history': { get: operator },
      '/metrics': { get: operator },
      '/health/live': { get: open },
    },
  } as unknown as OpenAPIObject;
  const table = new RouteTable();
  table.load(document, contextPath, DOCS);
  return table;
}

describe('RouteTable', () => {
  const table = tableOf();

  it('matches a route as spelled, with its template and HEAD beside GET', () => {
    expect(table.match('GET', '/api/things?countryCode=IE')?.template).toBe('/api/things');
    expect(table.match('HEAD', '/api/things')?.template).toBe('/api/things');
    expect(table.match('GET', '/api/gateway/payment-status/vk%2F1')?.template).toBe(
      '/api/gateway/payment-status/:validationKey',
    );
    expect(table.match('PUT', '/admin/things/7')?.template).toBe('/admin/things/:id');
    expect(table.match('GET', '/admin/things/7/history')?.template).toBe(
      '/admin/things/:id/history',
    );
  });

  it.each([
    ['another case', '/API/things'],
    ['a trailing slash', '/api/things/'],
    ['repeated slashes', '//api/things'],
    ['a dot segment', '/api/./things'],
    ['a dot-dot segment', '/api/x/../things'],
    ['an escaped letter', '/%61pi/things'],
    ['a backslash', '/api\\things'],
    ['a parameter on a segment', '/api;v=1/things'],
    ['an empty parameter', '/api/gateway/payment-status/'],
    ['a dot parameter', '/api/gateway/payment-status/..'],
    ['an escaped dot parameter', '/api/gateway/payment-status/%2e%2e'],
    ['an undecodable parameter', '/api/gateway/payment-status/%E0%A4%A'],
    ['an extra segment', '/api/gateway/payment-status/k/extra'],
    ['a parameter too long', `/api/gateway/payment-status/${'k'.repeat(MAX_PARAMETER_LENGTH + 1)}`],
  ])('serves no request with %s', (_label, url) => {
    expect(table.match('GET', url)).toBeUndefined();
  });

  it('serves a method only where it is declared, and lists the methods of a path', () => {
    expect(table.match('POST', '/api/things')).toBeUndefined();
    expect(table.methodsFor('/api/things?x=1')).toEqual(['GET', 'HEAD']);
    expect(table.methodsFor('/admin/things/7')).toEqual(['DELETE', 'PUT']);
    expect(table.methodsFor('/api/things/')).toEqual([]);
  });

  it('serves the docs page, its plain files and the document, nothing else below /docs', () => {
    for (const url of [
      '/docs',
      '/docs/',
      '/docs/swagger-ui.css',
      '/docs/index.html',
      '/docs-json',
    ]) {
      expect({ url, template: table.match('GET', url)?.template }).toMatchObject({ url });
      expect(table.match('GET', url)).toBeDefined();
    }
    for (const url of ['/docs/..', '/docs/.hidden', '/docs/a/b', `/docs/${'a'.repeat(101)}`]) {
      expect({ url, route: table.match('GET', url) }).toEqual({ url, route: undefined });
    }
  });

  it('puts a request no route serves in the area its path means, the stricter reading winning', () => {
    expect(table.areaOf('/API/./gateway/payment-status/k')).toEqual({
      segments: ['API', 'gateway', 'payment-status', 'k'],
      access: 'merchant',
    });
    for (const url of ['//api//x', '/%61pi/x', '/api;v=1/x', '/api\\x', '/health/../api/x']) {
      expect({ url, access: table.areaOf(url).access }).toEqual({ url, access: 'merchant' });
    }
    expect(table.areaOf('/api/../health/live').access).toBe('merchant');
    expect(table.areaOf('/Admin/x').access).toBe('operator');
    expect(table.areaOf('/metrics/x').access).toBe('operator');
    expect(table.areaOf('/health/x').access).toBe('public');
    expect(table.areaOf('/apix/y').access).toBe('public');
    expect(table.areaOf('/').access).toBe('public');
  });

  it('reads routes and areas below CONTEXT_PATH', () => {
    const prefixed = tableOf('/pegasus-ci');
    expect(prefixed.match('GET', '/pegasus-ci/api/things')?.template).toBe(
      '/pegasus-ci/api/things',
    );
    expect(prefixed.match('GET', '/api/things')).toBeUndefined();
    expect(prefixed.match('GET', '/pegasus-ci/docs-json')).toBeDefined();
    expect(prefixed.areaOf('/pegasus-ci/./api/x')).toEqual({
      segments: ['api', 'x'],
      access: 'merchant',
    });
    expect(prefixed.areaOf('/api/x').access).toBe('public');
  });

  it('knows the words routes are spelled with, query names included', () => {
    for (const word of ['api', 'gateway', 'payment-status', 'history', 'docs', 'countryCode']) {
      expect({ word, known: table.isRouteWord(word) }).toEqual({ word, known: true });
    }
    expect(table.isRouteWord('vk_secret_1')).toBe(false);
    expect(table.isRouteWord('{id}')).toBe(false);
  });
});
