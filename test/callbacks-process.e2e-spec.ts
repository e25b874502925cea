import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEASE_MARGIN_MS } from '../src/callbacks/callback-dispatcher.js';
import { MainProcess, startMain } from './support/main-process.js';
import { ADMIN_TOKEN, callbacksWhen, http, adminHeaders as admin } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

// Two starts of the production process and a lease to wait out: more than the default time per
// test on a busy machine.
jest.setTimeout(120_000);

describe('callbacks survive the process being killed (e2e)', () => {
  let dir: string;
  let receiver: WebhookReceiver;
  let main: MainProcess | undefined;
  const start = (env: Record<string, string> = {}) =>
    startMain({
      DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      ...env,
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-kill-'));
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    main?.child.kill('SIGKILL');
    main = undefined;
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setUp(instance: MainProcess, path: string): Promise<string> {
    const created = await http(`${instance.url}/admin/merchants`, {
      method: 'POST',
      headers: admin,
      body: { id: 'acme', name: 'Acme' },
    });
    const report = await http(`${instance.url}/admin/payment-sessions/vk_kill_1`, {
      method: 'PUT',
      headers: admin,
      body: {
        merchantId: 'acme',
        status: 'FAILED',
        errorMessage: 'Declined',
        errorUrl: `${receiver.url}${path}`,
      },
    });
    expect(report.status).toBe(201);
    return created.body.callbackSecret as string;
  }

  it('delivers, after a restart, a callback committed just before SIGKILL', async () => {
    // This instance delivers nothing: the callback exists only in the database when it dies.
    main = await start({ CALLBACKS_ENABLED: 'false' });
    const secret = await setUp(main, '/after-kill');
    main.child.kill('SIGKILL');
    await main.exited;
    main = await start();
    await receiver.waitFor(() => receiver.to('/after-kill').length === 1);
    const [delivery] = receiver.to('/after-kill');
    expect(receiver.verifies(delivery, secret)).toBe(true);
    expect(JSON.parse(delivery.body)).toEqual({
      status: 'FAILED',
      validationKey: 'vk_kill_1',
      errorMessage: 'Declined',
    });
  });

  it('makes again, with the same webhook-id, an attempt cut off by SIGKILL', async () => {
    receiver.answer('/cut', 'hang');
    // Long enough that the first attempt is still waiting for its answer when the process is
    // killed, even on a busy machine.
    const timeoutMs = 3000;
    main = await start({ CALLBACK_TIMEOUT_MS: String(timeoutMs) });
    const secret = await setUp(main, '/cut');
    await receiver.waitFor(() => receiver.to('/cut').length === 1);
    main.child.kill('SIGKILL');
    await main.exited;
    main = await start({ CALLBACK_TIMEOUT_MS: String(timeoutMs) });
    // The lease of the attempt that died expires timeoutMs + LEASE_MARGIN_MS after it was claimed,
    // before this restart; the next attempt delivers (with room for a busy machine).
    const leaseMs = timeoutMs + LEASE_MARGIN_MS;
    await receiver.waitFor(() => receiver.to('/cut').length === 2, leaseMs + 12_000);
    const [cut, again] = receiver.to('/cut');
    expect(again.webhookId).toBe(cut.webhookId);
    expect(again.body).toBe(cut.body);
    expect(receiver.verifies(again, secret)).toBe(true);
    const listed = await callbacksWhen(
      main.url,
      'vk_kill_1',
      ([c]) => c?.state === 'delivered',
      15_000,
    );
    expect(listed.body.payload[0].state).toBe('delivered');
  });
});
