import { parseWatcherOptions, WatcherOptionsError } from './watcher-options.js';

const ENV = { WATCHER_TOKEN: 'op_token' };
const BASE = [
  'evm',
  '--rpc-url',
  'https://node.example/v3/key',
  '--gateway-url',
  'https://pay.example/gw/',
];

describe('parseWatcherOptions', () => {
  it('reads the network, both URLs and the token, with the defaults', () => {
    expect(parseWatcherOptions(BASE, ENV)).toEqual({
      network: 'evm',
      rpcUrl: 'https://node.example/v3/key',
      gatewayUrl: 'https://pay.example/gw',
      token: 'op_token',
      chainId: undefined,
      pollMs: 5000,
      logLevel: 'info',
    });
  });

  it('reads --chain-id, --poll-seconds and LOG_LEVEL', () => {
    const options = parseWatcherOptions([...BASE, '--chain-id', '137', '--poll-seconds', '0.5'], {
      ...ENV,
      LOG_LEVEL: 'debug',
    });
    expect(options).toMatchObject({ chainId: 137, pollMs: 500, logLevel: 'debug' });
  });

  it.each([
    [['--rpc-url', 'http://n', '--gateway-url', 'http://g'], ENV, 'name one network'],
    [['tron', '--rpc-url', 'http://n', '--gateway-url', 'http://g'], ENV, 'unknown network "tron"'],
    [['evm', '--gateway-url', 'http://g'], ENV, '--rpc-url is required'],
    [['evm', '--rpc-url', 'ws://n', '--gateway-url', 'http://g'], ENV, '--rpc-url must be an http'],
    [
      ['evm', '--rpc-url', 'http://n', '--gateway-url', 'http://g?x=1'],
      ENV,
      '--gateway-url must have no',
    ],
    [[...BASE, '--chain-id', '0x1'], ENV, '--chain-id must be a positive integer'],
    [[...BASE, '--chain-id', '0'], ENV, '--chain-id must be a positive integer'],
    [[...BASE, '--poll-seconds', '0'], ENV, '--poll-seconds must be a number'],
    [[...BASE, '--poll-seconds=-1'], ENV, '--poll-seconds must be a number'],
    [[...BASE, '--unknown', 'x'], ENV, "Unknown option '--unknown'"],
    [BASE, {}, 'WATCHER_TOKEN must hold the operator token'],
    [BASE, { WATCHER_TOKEN: '  ' }, 'WATCHER_TOKEN must hold the operator token'],
    [BASE, { ...ENV, LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of'],
  ])('refuses %j with %j', (argv, env, message) => {
    expect(() => parseWatcherOptions(argv, env)).toThrow(WatcherOptionsError);
    expect(() => parseWatcherOptions(argv, env)).toThrow(message);
  });
});
