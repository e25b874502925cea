import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Address, Hash } from 'viem';
import { WebhookReceiver } from '../support/webhook-receiver.js';
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
import {
  COIN_PAIR,
  loopbackCertificate,
  merchantAddress,
  pageStateOf,
  payingCheckout,
  paymentOf,
  productionEnv,
  RealGateway,
  setUpShop,
  statusOf,
  TOKEN_PAIR,
  type Checkout,
  type Payment,
  type Shop,
} from './support/real-gateway.js';
import { startWatcherProcess, until, type WatcherProcess } from './support/watcher-run.js';

// Three processes of their own (the gateway, the watcher, anvil) and blocks mined one by one:
// each step is waited for by polling, with room for a busy two-core machine.
jest.setTimeout(240_000);

const WAIT_MS = 60_000;
const CONFIRMATIONS = 3;
/** 10.00 EUR at 0.92 EUR per TUSD (6 decimals), rounded up. */
const TOKEN_DUE = 10_869_566n;
/** 10.00 EUR at 2000 EUR per ETH, in wei. */
const COIN_DUE = 5_000_000_000_000_000n;

/** Polls `read` until `holds` is true of what it returned; fails with the last value read. */
async function eventually<T>(
  read: () => Promise<T>,
  holds: (value: T) => boolean,
  what: string,
  timeoutMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined;
    let error: unknown;
    try {
      value = await read();
      if (holds(value)) return value;
    } catch (caught) {
      error = caught;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}; last: ${error ? String(error) : JSON.stringify(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The reference EVM watcher, as its own process, against the real gateway (`dist/main.js` with
 * NODE_ENV=production on a SQLite file), a real local EVM node (anvil) with a token deployed on
 * it, and a merchant's callback receiver over https: what a shopper, a merchant and an operator
 * observe.
 */
describe('EVM watcher with the real gateway', () => {
  let node: LocalEvmNode;
  let clients: NodeClients;
  let token: TestToken;
  let otherToken: TestToken;
  let gateway: RealGateway;
  let receiver: WebhookReceiver;
  let shop: Shop;
  let watcher: WatcherProcess | undefined;
  let checkouts = 0;
  let certificates: string | undefined;

  const startWatcher = () =>
    (watcher = startWatcherProcess(
      [
        'evm',
        '--rpc-url',
        node.url,
        '--gateway-url',
        gateway.url,
        '--chain-id',
        String(LOCAL_CHAIN_ID),
        '--poll-seconds',
        '0.5',
      ],
      { WATCHER_TOKEN: shop.watcherToken, LOG_LEVEL: 'debug' },
    ));
  const stopWatcher = async () => {
    const run = watcher;
    watcher = undefined;
    if (!run) return undefined;
    run.kill('SIGTERM');
    return run.exited;
  };
  const linesOf = (run: WatcherProcess, msg: string) =>
    run.lines().filter((line) => line.msg === msg);
  /** Resolves once the watcher has scanned block `block` (its debug `Round` line says so). */
  const scanned = (run: WatcherProcess, block: bigint) =>
    until(
      () => linesOf(run, 'Round').some((line) => BigInt(line.to as string) >= block),
      WAIT_MS,
      `a round that scanned block ${block}`,
    );
  /** Resolves once the watcher has ended its first round (it stops cleanly from then on). */
  const started = (run: WatcherProcess) =>
    until(() => linesOf(run, 'Round').length > 0, WAIT_MS, 'the watcher’s first round');
  /** A checkout of 10.00 EUR paying `pair`, and its address the merchant's next one. */
  const checkout = async (pair = TOKEN_PAIR): Promise<Checkout> => {
    const started = await payingCheckout(
      gateway,
      shop,
      `vk_watch_${++checkouts}`,
      receiver.url,
      pair,
    );
    return started;
  };
  const pageShows = (c: Checkout, holds: (payment: Payment) => boolean, what: string) =>
    eventually(() => paymentOf(gateway, c.token), holds, `the page to show ${what}`);
  const successful = (c: Checkout) =>
    eventually(
      () => statusOf(gateway, shop, c.validationKey),
      (status) => status.status === 'SUCCESSFUL',
      `${c.validationKey} SUCCESSFUL`,
    );
  /** The session's signed callback, once it arrived. */
  const callbackOf = async (c: Checkout) => {
    await receiver.waitFor(
      () => receiver.to('/return').some((d) => d.body.includes(`"${c.validationKey}"`)),
      WAIT_MS,
    );
    const delivery = receiver.to('/return').find((d) => d.body.includes(`"${c.validationKey}"`))!;
    expect(receiver.verifies(delivery, shop.callbackSecret)).toBe(true);
    return JSON.parse(delivery.body) as { status: string; [field: string]: unknown };
  };
  /** Every deposit the gateway stored (the operator's list, all pages). */
  const storedDeposits = async () => {
    const all: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const page = await gateway.admin(
        `/admin/deposits?network=evm&size=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      all.push(...page.body.payload);
      cursor = page.body.nextCursor;
    } while (cursor);
    return all;
  };
  const depositOf = async (txid: Hash) =>
    (await storedDeposits()).find((d) => d.txid === txid.toLowerCase());

  beforeAll(async () => {
    node = await LocalEvmNode.start();
    clients = clientsOf(node);
    token = await TestToken.deploy(clients, 6);
    otherToken = await TestToken.deploy(clients, 6);
    certificates = mkdtempSync(join(tmpdir(), 'watcher-receiver-'));
    const tls = loopbackCertificate(certificates);
    receiver = await WebhookReceiver.start(0, tls);
    gateway = await RealGateway.start({
      ...productionEnv(tls.certFile),
      // A short quote: quotes are renewed (at the same rate) while the tests wait for blocks.
      QUOTE_TTL_SECONDS: '5',
      RATE_MAX_AGE_SECONDS: '86400',
    });
    shop = await setUpShop(gateway, {
      chainId: LOCAL_CHAIN_ID,
      tokenContract: token.address,
      tokenDecimals: 6,
      confirmations: CONFIRMATIONS,
    });
  });
  afterAll(async () => {
    await stopWatcher();
    await gateway?.close();
    await receiver?.close();
    await node?.close();
    if (certificates) rmSync(certificates, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await started(startWatcher());
  });
  afterEach(async () => {
    const run = watcher;
    const exited = await stopWatcher();
    expect(exited).toEqual({ code: 0, signal: null });
    // The gateway refused no report (a refusal is an error line), and the token was never logged.
    const lines = run!.lines();
    if (process.env.WATCHER_LOG) for (const line of lines) if (line.level >= 40) console.log(line);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(run!.output()).not.toContain(shop.watcherToken);
  });

  it('registers a watch-only key of another wallet: the gateway derives that wallet’s addresses', () => {
    expect(shop.depositKey.firstAddresses).toEqual([0, 1, 2].map(merchantAddress));
  });

  it('pays a token checkout end to end, then a coin checkout, each with its signed callback', async () => {
    const run = watcher!;
    const paying = await checkout(TOKEN_PAIR);
    expect(paying.payment).toMatchObject({
      pair: 'TUSD/ERC20',
      address: merchantAddress(checkouts - 1),
      amountAtomic: String(TOKEN_DUE),
      chainId: LOCAL_CHAIN_ID,
      tokenContract: token.address,
      confirmationsRequired: CONFIRMATIONS,
      progress: { state: 'waiting' },
    });
    const tx = await token.transfer(paying.payment.address, TOKEN_DUE);
    await mine(clients, CONFIRMATIONS);
    const status = await successful(paying);
    expect(status).toMatchObject({
      status: 'SUCCESSFUL',
      paymentResponse: {
        paymentMethod: 'TUSD/ERC20',
        money: { amount: 10, currency: 'EUR' },
        validationKey: paying.validationKey,
      },
    });
    // The page the shopper has open ends: paid.
    expect(await pageStateOf(gateway, paying.token)).toMatchObject({
      status: 'SUCCESSFUL',
      stage: 'ended',
    });
    expect(await callbackOf(paying)).toMatchObject({ status: 'SUCCESSFUL' });
    expect(await depositOf(tx)).toMatchObject({
      address: paying.payment.address,
      asset: token.address,
      amount: String(TOKEN_DUE),
      counted: true,
    });

    const coin = await checkout(COIN_PAIR);
    expect(coin.payment).toMatchObject({
      pair: 'ETH/ERC20',
      address: merchantAddress(checkouts - 1),
      amountAtomic: String(COIN_DUE),
    });
    expect(coin.payment.tokenContract).toBeUndefined();
    const coinTx = await sendCoin(clients, coin.payment.address, '0.005');
    await mine(clients, CONFIRMATIONS);
    expect(await successful(coin)).toMatchObject({
      paymentResponse: { paymentMethod: 'ETH/ERC20' },
    });
    expect(await callbackOf(coin)).toMatchObject({ status: 'SUCCESSFUL' });
    expect(await depositOf(coinTx)).toMatchObject({
      index: 0,
      asset: 'native',
      amount: String(COIN_DUE),
      counted: true,
    });
    expect(run.output()).not.toContain(shop.watcherToken);
  });

  it('shows confirmations rising block by block; a reorganisation stops the deposit counting until it is mined again', async () => {
    const paying = await checkout(TOKEN_PAIR);
    const snapshot = await clients.test.snapshot();
    const signed = await token.signedTransfer(paying.payment.address, TOKEN_DUE);
    const tx = await clients.wallet.sendRawTransaction({ serializedTransaction: signed });
    for (let confirmations = 1; confirmations < CONFIRMATIONS; confirmations++) {
      await mine(clients);
      await pageShows(
        paying,
        (p) => p.progress.state === 'seen' && p.progress.confirmations === confirmations,
        `${confirmations} of ${CONFIRMATIONS} confirmations`,
      );
    }

    // The node goes back to before the transfer and mines more blocks in their place.
    await clients.test.revert({ id: snapshot });
    await mine(clients, CONFIRMATIONS + 1);
    await pageShows(
      paying,
      (p) => p.progress.state === 'seen' && p.progress.confirmations === 0,
      'the deposit at 0 confirmations',
    );
    expect(await depositOf(tx)).toMatchObject({ confirmations: 0, counted: false });
    expect((await statusOf(gateway, shop, paying.validationKey)).status).toBe('PENDING');
    expect(
      linesOf(watcher!, 'Chain reorganisation: scanning the replaced blocks again'),
    ).not.toEqual([]);

    // The same signed transfer is mined again, in another block: it counts once confirmed.
    await clients.wallet.sendRawTransaction({ serializedTransaction: signed });
    await mine(clients);
    await pageShows(
      paying,
      (p) => p.progress.state === 'seen' && p.progress.confirmations === 1,
      '1 confirmation again',
    );
    expect((await statusOf(gateway, shop, paying.validationKey)).status).toBe('PENDING');
    await mine(clients, CONFIRMATIONS - 1);
    await successful(paying);
    expect(await depositOf(tx)).toMatchObject({ confirmations: CONFIRMATIONS, counted: true });
    expect(await callbackOf(paying)).toMatchObject({ status: 'SUCCESSFUL' });
  });

  it('underpaid, overpaid, another token, and an address the gateway never gave', async () => {
    const run = watcher!;
    const under = await checkout(TOKEN_PAIR);
    const over = await checkout(TOKEN_PAIR);
    const wrong = await checkout(TOKEN_PAIR);
    // The merchant's key's address 50, never given to a checkout, and a stranger's.
    const neverGiven: Address[] = [merchantAddress(50), freshAddress()];

    const underTx = await token.transfer(under.payment.address, TOKEN_DUE - 1000n);
    const overTx = await token.transfer(over.payment.address, TOKEN_DUE + 5000n);
    const wrongTx = await otherToken.transfer(wrong.payment.address, TOKEN_DUE);
    const strangerTxs = [
      await token.transfer(neverGiven[0], TOKEN_DUE),
      await sendCoin(clients, neverGiven[1], '0.005'),
    ];
    await mine(clients, CONFIRMATIONS);
    const { blockNumber } = await mined(clients, strangerTxs[1]);

    // Underpaid: the page shows what arrived and what is left; the session waits for the rest.
    const shown = await pageShows(under, (p) => p.progress.state === 'underpaid', 'underpaid');
    expect(shown.progress).toMatchObject({
      received: { amountAtomic: String(TOKEN_DUE - 1000n) },
      remaining: { amountAtomic: '1000', amount: '0.001' },
    });
    expect((await statusOf(gateway, shop, under.validationKey)).status).toBe('PENDING');

    // Overpaid: SUCCESSFUL, the excess flagged for the operator.
    await successful(over);
    expect(await depositOf(overTx)).toMatchObject({
      counted: true,
      flag: 'OVERPAID',
      flaggedAmount: '5000',
    });
    expect(await callbackOf(over)).toMatchObject({ status: 'SUCCESSFUL' });
    // Another transfer to the paid checkout's address: stored and flagged late, the session unchanged.
    const extraTx = await token.transfer(over.payment.address, 7n);
    await mine(clients, CONFIRMATIONS);
    await eventually(
      () => depositOf(extraTx),
      (deposit) => deposit?.confirmations === CONFIRMATIONS,
      'the extra transfer stored',
    );
    expect(await depositOf(extraTx)).toMatchObject({ amount: '7', counted: false, flag: 'LATE' });
    expect((await statusOf(gateway, shop, over.validationKey)).status).toBe('SUCCESSFUL');
    expect(
      receiver.to('/return').filter((d) => d.body.includes(`"${over.validationKey}"`)),
    ).toHaveLength(1);

    // Another token: stored, flagged, never counted.
    await eventually(
      () => depositOf(wrongTx),
      (deposit) => deposit?.flag === 'OTHER_ASSET',
      'the other token stored and flagged',
    );
    expect(await depositOf(wrongTx)).toMatchObject({
      asset: otherToken.address,
      counted: false,
    });
    expect((await statusOf(gateway, shop, wrong.validationKey)).status).toBe('PENDING');
    expect((await paymentOf(gateway, wrong.token)).progress.state).toBe('waiting');
    const flagged = await gateway.admin('/admin/deposits?flagged=true&size=100');
    expect(flagged.body.payload.map((d: { txid: string }) => d.txid)).toEqual(
      expect.arrayContaining([overTx.toLowerCase(), wrongTx.toLowerCase()]),
    );

    // Addresses the gateway never gave: the watcher does not report them, no deposit row.
    await scanned(run, blockNumber + BigInt(CONFIRMATIONS) - 1n);
    for (const tx of strangerTxs) expect(await depositOf(tx)).toBeUndefined();
    const addresses = (await storedDeposits()).map((d) => d.address);
    for (const address of neverGiven) expect(addresses).not.toContain(address);

    // The rest of the underpayment arrives: the session is paid.
    await token.transfer(under.payment.address, 1000n);
    await mine(clients, CONFIRMATIONS);
    await successful(under);
    expect(await depositOf(underTx)).toMatchObject({ counted: true });
    expect(await callbackOf(under)).toMatchObject({ status: 'SUCCESSFUL' });
  });

  it('finds a payment that landed while it was stopped, once started again', async () => {
    const paying = await checkout(COIN_PAIR);
    await scanned(watcher!, await clients.public.getBlockNumber({ cacheTime: 0 }));
    expect(await stopWatcher()).toEqual({ code: 0, signal: null });

    await sendCoin(clients, paying.payment.address, '0.005');
    await mine(clients, CONFIRMATIONS + 1);
    expect((await statusOf(gateway, shop, paying.validationKey)).status).toBe('PENDING');

    const run = startWatcher();
    await successful(paying);
    expect(await callbackOf(paying)).toMatchObject({ status: 'SUCCESSFUL' });
    expect(
      linesOf(run, 'Scanning from the first block a watched address could have received in'),
    ).toHaveLength(1);
  });

  it('lives through the node and then the gateway going away: one log line each, and catches up', async () => {
    const run = watcher!;
    const byNode = await checkout(TOKEN_PAIR);
    const byGateway = await checkout(COIN_PAIR);
    await scanned(run, await clients.public.getBlockNumber({ cacheTime: 0 }));

    // The node goes away for a while: the watcher retries with backoff (1 s, 2 s, 4 s …).
    await node.stop();
    await until(
      () => linesOf(run, 'Node unavailable: retrying with backoff').length > 0,
      WAIT_MS,
      'the node outage line',
    );
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await node.restart();
    await token.transfer(byNode.payment.address, TOKEN_DUE);
    await mine(clients, CONFIRMATIONS);
    await successful(byNode);

    // The gateway goes away while a payment lands.
    await gateway.stop();
    await sendCoin(clients, byGateway.payment.address, '0.005');
    await mine(clients);
    await until(
      () => linesOf(run, 'Gateway unavailable: retrying with backoff').length > 0,
      WAIT_MS,
      'the gateway outage line',
    );
    await mine(clients, CONFIRMATIONS);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await gateway.restart();
    await successful(byGateway);
    expect(await callbackOf(byGateway)).toMatchObject({ status: 'SUCCESSFUL' });
    await until(
      () => linesOf(run, 'Gateway available again').length > 0,
      WAIT_MS,
      'the gateway back line',
    );

    // No crash, and one line when each went away and one when it was back.
    expect(run.lines().filter((line) => line.level >= 50)).toEqual([]);
    expect(linesOf(run, 'Node unavailable: retrying with backoff')).toHaveLength(1);
    expect(linesOf(run, 'Gateway unavailable: retrying with backoff')).toHaveLength(1);
    const [nodeBack] = linesOf(run, 'Node available again');
    expect(nodeBack.failedCalls as number).toBeGreaterThan(1);
    expect(linesOf(run, 'Node available again')).toHaveLength(1);
    expect(linesOf(run, 'Gateway available again')).toHaveLength(1);
  });
});
