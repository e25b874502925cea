import { routableUrl } from './paths.js';

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
  ])('routes %s as %s', (url, routed) => {
    expect(routableUrl(url)).toBe(routed);
  });

  it('leaves a plain target alone', () => {
    for (const url of ['/', '/api/gateway/x?a=%41', '/docs/.hidden']) {
      expect(routableUrl(url)).toBeUndefined();
    }
  });
});
