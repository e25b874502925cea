import type { OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_SCHEME, API_KEY_SCHEME } from '../common/http/endpoint.decorator.js';
import { RouteTable } from './route-table.js';

function documentOf(paths: Record<string, Record<string, object>>): OpenAPIObject {
  return { openapi: '3.0.0', info: { title: 't', version: '1' }, paths } as OpenAPIObject;
}
const merchant = { security: [{ [API_KEY_SCHEME]: [] }] };
const operator = { security: [{ [ADMIN_SCHEME]: [] }] };

describe('RouteTable', () => {
  it('lists the methods of a path, with HEAD beside GET', () => {
    const table = new RouteTable();
    table.load(documentOf({ '/api/things/{id}': { get: merchant, put: merchant } }), '');
    expect(table.methodsFor('/api/things/7?x=1')).toEqual(['GET', 'HEAD', 'PUT']);
    expect(table.methodsFor('/api/other')).toEqual([]);
  });

  it('reads paths with or without CONTEXT_PATH', () => {
    for (const path of ['/pegasus-ci/api/things', '/api/things']) {
      const table = new RouteTable();
      table.load(documentOf({ [path]: { get: merchant } }), '/pegasus-ci');
      expect(table.methodsFor('/pegasus-ci/api/things')).toEqual(['GET', 'HEAD']);
    }
  });

  it.each([
    ['/api/things', {}, 'declared for public callers'],
    ['/api/things', operator, 'declared for operator callers'],
    ['/admin/things', merchant, 'declared for merchant callers'],
    ['/health/things', operator, 'admitted as public'],
  ])('refuses to start when %s declares another access than its path', (path, op, message) => {
    expect(() => new RouteTable().load(documentOf({ [path]: { get: op } }), '')).toThrow(message);
  });
});
