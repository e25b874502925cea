import { pathOf, routableUrl } from './paths.js';

describe('routableUrl', () => {
  it.each([
    ['//api//gateway/./x/', '/api/gateway/x'],
    ['/api/y/../gateway/x?size=1', '/api/gateway/x?size=1'],
    ['/%61pi/%2e/x', '/api/x'],
    ['/api\\gateway\\x', '/api/gateway/x'],
    ['/api;v=1/gateway;x/x', '/api/gateway/x'],
    ['/../../api', '/api'],
    ['/api/%E0%A4%A', '/api/%25E0%25A4%25A'],
    ['/api/vk%2Fkey', '/api/vk%2Fkey'],
    ['/docs/', '/docs'],
    ['http://gw.example/api/gateway/x?size=1', '/api/gateway/x?size=1'],
    ['HTTPS://gw.example:8443//api/./x', '/api/x'],
    ['http://gw.example', '/'],
    ['http://gw.example?size=1', '/?size=1'],
  ])('routes %s as %s', (url, routed) => {
    expect(routableUrl(url)).toBe(routed);
  });

  it('leaves a plain target alone', () => {
    for (const url of ['/', '/api/gateway/x?a=%41', '/docs/.hidden']) {
      expect(routableUrl(url)).toBeUndefined();
    }
  });
});

describe('pathOf', () => {
  it.each([
    ['/api/x?size=1', '/api/x'],
    ['/api/x', '/api/x'],
    ['http://gw.example/api/x?size=1', '/api/x'],
    ['http://gw.example', '/'],
    ['*', '*'],
  ])('reads the path of %s as %s', (url, path) => {
    expect(pathOf(url)).toBe(path);
  });
});
