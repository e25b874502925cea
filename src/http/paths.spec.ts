import { MAX_LOGGED_URL, classifyPath } from './paths.js';

const KEY = 'vk_demo_pending_8b1d3c5f';

describe('classifyPath', () => {
  it.each([
    ['/api/crypto-currency-protocol-processors?countryCode=IE', 'merchant'],
    ['/API/anything', 'merchant'],
    ['//api//x', 'merchant'],
    ['/%61pi/x', 'merchant'],
    ['/api/../health/live', 'merchant'],
    ['/health/../api/x', 'merchant'],
    ['/admin/crypto-pairs', 'operator'],
    ['/Admin/./crypto-pairs', 'operator'],
    ['/metrics', 'operator'],
    ['/health/live', 'public'],
    ['/docs', 'public'],
    ['/', 'public'],
    ['/apix/y', 'public'],
  ])('admits %s as a %s request', (url, policy) => {
    expect(classifyPath(url, '').policy).toBe(policy);
  });

  it('applies the policies below CONTEXT_PATH only', () => {
    expect(classifyPath('/pegasus-ci/api/x', '/pegasus-ci').policy).toBe('merchant');
    expect(classifyPath('/PEGASUS-CI/admin/x', '/pegasus-ci').policy).toBe('operator');
    expect(classifyPath('/api/x', '/pegasus-ci').policy).toBe('public');
    expect(classifyPath('/pegasus-ci/./Api/x', '/Pegasus-CI/').policy).toBe('merchant');
    expect(classifyPath('/pegasus/api/x', '/pegasus-ci').policy).toBe('public');
    expect(classifyPath('/api/x', '').policy).toBe('merchant');
  });

  it('sees the status lookup below CONTEXT_PATH only', () => {
    expect(classifyPath(`/ctx/API/gateway/payment-status/${KEY}`, '/ctx').statusLookup).toBe(true);
    expect(classifyPath(`/api/gateway/payment-status/${KEY}`, '/ctx').statusLookup).toBe(false);
  });

  it.each([
    `/api/gateway/payment-status/${KEY}`,
    `/api/./gateway/payment-status/${KEY}`,
    `/API/gateway/payment-status/${KEY}`,
    `/api/x/../gateway/payment-status/${KEY}`,
    `//api//gateway//payment-status/${KEY}`,
    `/api/gateway/payment-status/${encodeURIComponent(KEY)}`,
    '/api/gateway/payment-status/',
    '/api/gateway/payment-status/%E0%A4%A',
    '/api/gateway/payment-status/a/b',
  ])('sees %s as a status lookup', (url) => {
    expect(classifyPath(url, '').statusLookup).toBe(true);
  });

  it.each([`/api/gateway/payment-statuses/${KEY}`, '/admin/payment-sessions/x', '/health/live'])(
    'does not see %s as a status lookup',
    (url) => {
      expect(classifyPath(url, '').statusLookup).toBe(false);
    },
  );

  it.each([
    `/api/gateway/payment-status/${KEY}`,
    `/api/./gateway/payment-status/${KEY}?x=1`,
    `/API/gateway/payment-status/${KEY}`,
    `/api/x/../gateway/payment-status/${KEY}`,
    `//api//gateway/payment-status/${KEY}`,
    `/api/gateway/payment-status/${KEY}/extra`,
    `/%61pi/gateway/payment-status/${encodeURIComponent(KEY)}`,
    `/elsewhere/api/gateway/payment-status/${KEY}`,
    `/admin/payment-sessions/${KEY}/history`,
    `/admin/./payment-sessions/${KEY}`,
  ])('never logs the whole key of %s, only its first 6 characters', (url) => {
    const { loggable } = classifyPath(url, '');
    expect(loggable).not.toContain(KEY.slice(0, 7));
    expect(loggable).toContain(`${KEY.slice(0, 6)}…`);
  });

  it('keeps the route words after an operator key: /history', () => {
    expect(classifyPath(`/admin/payment-sessions/${KEY}/history`, '').loggable).toBe(
      '/admin/payment-sessions/vk_dem…/history',
    );
  });

  it(`cuts a logged URL to ${MAX_LOGGED_URL} characters and keeps it printable`, () => {
    const { loggable } = classifyPath(`/api/${'p'.repeat(20_000)}\u0000\u001b[31m`, '');
    expect(loggable.length).toBeLessThanOrEqual(MAX_LOGGED_URL);
    expect(classifyPath('/api/a\u001b[31mb', '').loggable).toBe('/api/a?[31mb');
  });
});
