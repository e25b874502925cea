import { jest } from '@jest/globals';
import type { Address, Hash } from 'viem';
import { DepositGateway, type ReceivedDeposit } from './support/deposit-gateway.js';
import {
  clientsOf,
  freshAddress,
  LocalEvmNode,
  LOCAL_CHAIN_ID,
  mine,
  mined,
  sendCoin,
  TestToken,
  type NodeClients,
} from './support/evm-node.js';
import { startWatcherProcess, until, WatcherRun } from './support/watcher-run.js';

// A local node, a token deployed on it, a watcher polling every 200 ms: each test waits for a few
// rounds and for blocks to be mined, well under this on a busy machine.
jest.setTimeout(90_000);

const TOKEN = 'op_watcher_test_token_0123456789abcdef';
const WAIT_MS = 20_000;

describe('EVM watcher against a local node', () => {
  let node: LocalEvmNode;
  let clients: NodeClients;
  let token: TestToken;
  let gateway: DepositGateway;
  let watcher: WatcherRun | undefined;

  const startWatcher = (options: { chainId?: number } = {}) =>
    (watcher = new WatcherRun({
      rpcUrl: node.url,
      gatewayUrl: gateway.url,
      token: TOKEN,
      chainId: options.chainId ?? LOCAL_CHAIN_ID,
    }));
  const watchToken = (confirmations: number, address = freshAddress()) => {
    gateway.watch(address, {
      chainId: LOCAL_CHAIN_ID,
      confirmations,
      tokenContract: token.address,
    });
    return address;
  };
  const watchCoin = (confirmations: number, address = freshAddress()) => {
    gateway.watch(address, { chainId: LOCAL_CHAIN_ID, confirmations });
    return address;
  };
  /** The confirmations reported for one transfer, in order. */
  const confirmationsOf = (txid: Hash, index?: number) =>
    gateway.reportsOf(txid, index).map((deposit) => deposit.confirmations);
  const reported = (txid: Hash, confirmations: number, index?: number) =>
    until(
      () => confirmationsOf(txid, index).at(-1) === confirmations,
      WAIT_MS,
      `${txid} reported with ${confirmations} confirmations (so far ${confirmationsOf(txid, index)})`,
    );

  beforeAll(async () => {
    node = await LocalEvmNode.start();
    clients = clientsOf(node);
    token = await TestToken.deploy(clients);
  });
  afterAll(async () => {
    await node?.close();
  });
  beforeEach(async () => {
    gateway = await DepositGateway.start(TOKEN);
  });
  afterEach(async () => {
    await watcher?.stop();
    watcher = undefined;
    await gateway.stop();
  });

  it('reports token and coin transfers with their fields, confirmations rising block by block until the required number', async () => {
    const tokenPayee = watchToken(3);
    const coinPayee = watchCoin(2);
    const stranger = freshAddress(); // an address the gateway never gave
    const run = startWatcher();
    await run.moreRounds(1);

    const tokenTx = await token.transfer(tokenPayee, 10_712_346n);
    const coinTx = await sendCoin(clients, coinPayee, '0.25');
    const strangerTxs = [
      await token.transfer(stranger, 5n),
      await sendCoin(clients, stranger, '1'),
    ];
    await mine(clients);
    const tokenMined = await mined(clients, tokenTx);
    await reported(tokenTx, 1);
    await reported(coinTx, 1);

    const expected = (fields: Partial<ReceivedDeposit>) => ({
      network: 'evm',
      chainId: LOCAL_CHAIN_ID,
      at: expect.any(Number),
      ...fields,
    });
    expect(gateway.reportsOf(tokenTx)).toEqual([
      expected({
        address: tokenPayee,
        txid: tokenTx.toLowerCase(),
        index: tokenMined.logIndexes[0],
        asset: token.address,
        amount: '10712346',
        confirmations: 1,
      }),
    ]);
    expect(gateway.reportsOf(coinTx)).toEqual([
      expected({
        address: coinPayee,
        txid: coinTx.toLowerCase(),
        index: 0,
        asset: 'native',
        amount: '250000000000000000',
        confirmations: 1,
      }),
    ]);

    // One block at a time: each count is reported, up to the address's required number.
    await mine(clients);
    await reported(tokenTx, 2);
    await reported(coinTx, 2);
    await mine(clients);
    await reported(tokenTx, 3);
    // Past the required number, nothing more is said.
    await mine(clients, 3);
    await run.moreRounds(3);
    expect(confirmationsOf(tokenTx)).toEqual([1, 2, 3]);
    expect(confirmationsOf(coinTx)).toEqual([1, 2]);

    // The stranger's transfers are not reported; the gateway refused nothing.
    for (const tx of strangerTxs) expect(gateway.reportsOf(tx)).toEqual([]);
    expect(gateway.deposits.map((d) => d.address)).not.toContain(stranger);
    expect(gateway.refused).toEqual([]);
    // Every request carried the operator token; the list was asked for this chain's watched addresses.
    expect(gateway.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    const list = gateway.requests.find((r) => r.method === 'GET')!;
    expect(new URL(list.url, gateway.url).searchParams.get('chainId')).toBe(String(LOCAL_CHAIN_ID));
    expect(JSON.stringify(run.lines)).not.toContain(TOKEN);
  });

  it('reports each transfer of one transaction with its own log index, whatever the token', async () => {
    const first = watchToken(1);
    const second = watchCoin(1); // expects the coin: the gateway decides what a token transfer is worth
    const run = startWatcher();
    await run.moreRounds(1);
    const tx = await token.transferMany([first, freshAddress(), second], [7n, 8n, 9n]);
    await mine(clients);
    const { logIndexes } = await mined(clients, tx);
    await until(() => gateway.reportsOf(tx).length === 2, WAIT_MS, 'two reports');
    expect(
      gateway
        .reportsOf(tx)
        .map(({ address, index, amount, asset }) => ({ address, index, amount, asset })),
    ).toEqual([
      { address: first, index: logIndexes[0], amount: '7', asset: token.address },
      { address: second, index: logIndexes[2], amount: '9', asset: token.address },
    ]);
  });

  it('reads every page of watched addresses and asks for their transfers in batches', async () => {
    // 2,500 addresses: three pages of the list, three eth_getLogs calls a round.
    const addresses: Address[] = [];
    for (let i = 0; i < 2500; i++) addresses.push(watchToken(1));
    const run = startWatcher();
    await run.moreRounds(1);
    const payees = [addresses[0], addresses[1499], addresses[2499]];
    const txs = await Promise.all([token.transferMany(payees, [1n, 2n, 3n])]);
    const coinTx = await sendCoin(clients, addresses[2222], '0.01');
    await mine(clients);
    await until(() => gateway.reportsOf(txs[0]).length === 3, WAIT_MS, 'three token reports');
    await reported(coinTx, 1);
    expect(gateway.reportsOf(txs[0]).map((d) => d.address)).toEqual(payees);
    const pages = gateway.requests.filter((r) => r.method === 'GET');
    expect(pages.length % 3).toBe(0);
    const round = run.linesOf('Round').at(-1)!;
    expect(round.addresses).toBe(2500);
  });

  it('reports a transfer whose block left the chain with 0 confirmations, and again once mined anew', async () => {
    const payee = watchToken(5);
    const run = startWatcher();
    await run.moreRounds(1);

    const snapshot = await clients.test.snapshot();
    const signed = await token.signedTransfer(payee, 42n);
    const tx = await clients.wallet.sendRawTransaction({ serializedTransaction: signed });
    await mine(clients);
    await reported(tx, 1);
    await mine(clients);
    await reported(tx, 2);

    // The node goes back to before the transfer and mines other blocks in its place.
    await clients.test.revert({ id: snapshot });
    await mine(clients, 3);
    await reported(tx, 0);
    expect(run.linesOf('Chain reorganisation: scanning the replaced blocks again')).not.toEqual([]);

    // The same signed transaction lands again, in another block.
    await clients.wallet.sendRawTransaction({ serializedTransaction: signed });
    await mine(clients);
    await reported(tx, 1);
    await mine(clients, 4);
    await reported(tx, 5);
    expect(confirmationsOf(tx).slice(0, 4)).toEqual([1, 2, 0, 1]);
    expect(confirmationsOf(tx).at(-1)).toBe(5);
  });

  it('finds, after a restart, a payment that landed while it was stopped', async () => {
    const payee = watchCoin(2);
    const first = startWatcher();
    await first.moreRounds(1);
    expect(await first.stop()).toBe(0);
    expect(first.linesOf('Watcher stopped')).toHaveLength(1);

    const tx = await sendCoin(clients, payee, '0.5');
    await mine(clients);
    await mine(clients, 3);
    const { blockNumber } = await mined(clients, tx);

    const second = startWatcher();
    await reported(tx, 4);
    await second.moreRounds(2);
    // Reported once, with its confirmations already past the required number.
    expect(confirmationsOf(tx)).toEqual([4]);
    const [scan] = second.linesOf(
      'Scanning from the first block a watched address could have received in',
    );
    expect(BigInt(scan.startBlock as string)).toBeLessThanOrEqual(blockNumber);
  });

  it('survives the node going away: one line when it goes, one when it is back, and catches up', async () => {
    const payee = watchToken(1);
    const run = startWatcher();
    await run.moreRounds(1);
    await node.stop();
    await until(
      () => run.linesOf('Node unavailable: retrying with backoff').length > 0,
      WAIT_MS,
      'the outage line',
    );
    // Several attempts while it is down (backoff 200 ms to 1 s here).
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await node.restart();
    const tx = await token.transfer(payee, 1234n);
    await mine(clients);
    await reported(tx, 1);
    expect(run.linesOf('Node unavailable: retrying with backoff')).toHaveLength(1);
    const [back] = run.linesOf('Node available again');
    expect(back).toMatchObject({ dependency: 'node', url: node.url });
    expect(back.failedCalls as number).toBeGreaterThan(1);
    expect(run.linesOf('Node available again')).toHaveLength(1);
  });

  it('survives the gateway going away: one line when it goes, one when it is back, and reports what it missed', async () => {
    const payee = watchCoin(3);
    const run = startWatcher();
    await run.moreRounds(1);
    await gateway.stop();
    const tx = await sendCoin(clients, payee, '2');
    await mine(clients);
    await until(
      () => run.linesOf('Gateway unavailable: retrying with backoff').length > 0,
      WAIT_MS,
      'the outage line',
    );
    await mine(clients);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await gateway.restart();
    await reported(tx, 2);
    await mine(clients);
    await reported(tx, 3);
    expect(run.linesOf('Gateway unavailable: retrying with backoff')).toHaveLength(1);
    expect(run.linesOf('Gateway available again')).toHaveLength(1);
    expect(confirmationsOf(tx)).toEqual([2, 3]);
  });

  it('as a process: refuses a node on another chain than --chain-id', async () => {
    const run = startWatcherProcess(
      ['evm', '--rpc-url', node.url, '--gateway-url', gateway.url, '--chain-id', '1'],
      { WATCHER_TOKEN: TOKEN },
    );
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.lines()).toContainEqual(
      expect.objectContaining({
        msg: 'The node is on another chain than --chain-id: refusing to watch',
        expectedChainId: 1,
        nodeChainId: LOCAL_CHAIN_ID,
      }),
    );
    expect(gateway.requests).toEqual([]);
  });

  it('as a process: reports a payment, and ends cleanly on SIGTERM without ever logging its token', async () => {
    const payee = watchToken(1);
    const run = startWatcherProcess(
      [
        'evm',
        '--rpc-url',
        node.url,
        '--gateway-url',
        `${gateway.url}/`,
        '--chain-id',
        String(LOCAL_CHAIN_ID),
        '--poll-seconds',
        '0.2',
      ],
      { WATCHER_TOKEN: TOKEN },
    );
    await until(() => gateway.requests.length > 0, WAIT_MS, 'the first list request');
    const tx = await token.transfer(payee, 99n);
    await mine(clients);
    await reported(tx, 1);
    run.kill('SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    const messages = run.lines().map((line) => line.msg);
    expect(messages).toContain('Transfer seen');
    expect(messages.at(-1)).toBe('Watcher stopped');
    expect(run.output()).not.toContain(TOKEN);
  });
});
