import { Logger } from '@nestjs/common';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import type { CallbacksConfig } from '../config/app-config.js';
import { allowedAddressLookup, isForbiddenAddress } from './address-guard.js';
import type { CallbackRecord } from './callback.repository.js';

/** How an attempt ended, for the record, the log and the metrics. */
export type AttemptOutcome = 'delivered' | 'rejected' | 'timeout' | 'error';

export interface DeliveryResult {
  outcome: AttemptOutcome;
  httpStatus?: number;
  /** Why no 2xx arrived, in a few words (never a body, a secret or a URL's query). */
  error?: string;
  durationMs: number;
}

/**
 * One attempt of a callback: POST of its stored body, signed per Standard Webhooks v1 with each
 * of the merchant's current signing secrets (two for a day after a rotation, space-separated).
 * Success is a 2xx within the time limit; redirects are not followed; the answer's body is
 * ignored. In production the URL must be https and every address connected to must be public,
 * unless CALLBACK_ALLOW_PRIVATE_NETWORKS=true.
 */
export class CallbackSender {
  private readonly logger = new Logger('Callbacks');
  /**
   * undici's agent, loaded with the first callback: an instance that sends none does not keep
   * undici's 1 MB of sources and code in its heap.
   */
  private client?: Promise<{ agent: Agent; request: typeof import('undici').request }>;
  private readonly guarded: boolean;

  constructor(
    private readonly config: CallbacksConfig,
    private readonly production: boolean,
  ) {
    this.guarded = production && !config.allowPrivateNetworks;
  }

  private undici() {
    return (this.client ??= import('undici').then(({ Agent, request }) => ({
      request,
      agent: new Agent({
        headersTimeout: this.config.timeoutMs,
        bodyTimeout: this.config.timeoutMs,
        connect: {
          timeout: this.config.timeoutMs,
          ...(this.guarded ? { lookup: allowedAddressLookup } : {}),
        },
      }),
    })));
  }

  /** Why this URL may not receive callbacks here, or undefined. */
  urlRefusal(url: string): string | undefined {
    return this.production && !url.startsWith('https://')
      ? 'must be an https URL in production'
      : undefined;
  }

  async send(
    callback: CallbackRecord,
    secrets: string[],
    now = new Date(),
  ): Promise<DeliveryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refusal = this.refusal(callback.url, secrets);
    if (refusal) return { outcome: 'error', error: refusal, durationMs: 0 };
    const signature = secrets
      .map((secret) => new Webhook(secret).sign(callback.webhookId, now, callback.body))
      .join(' ');
    try {
      const { agent, request } = await this.undici();
      const response = await request(callback.url, {
        method: 'POST',
        dispatcher: agent,
        signal: AbortSignal.timeout(this.config.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'payment-gateway-callbacks/1',
          'webhook-id': callback.webhookId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: callback.body,
      });
      await response.body.dump();
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        outcome: ok ? 'delivered' : 'rejected',
        httpStatus: response.statusCode,
        error: ok ? undefined : `answered ${response.statusCode}`,
        durationMs: elapsed(),
      };
    } catch (error) {
      return { ...describeFailure(error), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    if (!this.client) return;
    const { agent } = await this.client;
    await agent
      .close()
      .catch((error: unknown) =>
        this.logger.warn({ err: String(error) }, 'Could not close the callback connections'),
      );
  }

  private refusal(url: string, secrets: string[]): string | undefined {
    if (secrets.length === 0) return 'the merchant has no callback secret';
    const urlRefusal = this.urlRefusal(url);
    if (urlRefusal) return `the URL ${urlRefusal}`;
    if (this.guarded) {
      // An address in the URL is connected to without a lookup: judge it here.
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && isForbiddenAddress(host)) return 'the address may not be reached';
    }
    return undefined;
  }
}

function describeFailure(error: unknown): Pick<DeliveryResult, 'outcome' | 'error'> {
  const failure = error as { name?: string; code?: string; cause?: { code?: string } } | null;
  const code = failure?.code ?? failure?.cause?.code;
  if (
    failure?.name === 'TimeoutError' ||
    failure?.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return { outcome: 'timeout', error: 'no answer in time' };
  }
  if (code === 'ERR_FORBIDDEN_ADDRESS')
    return { outcome: 'error', error: 'the address may not be reached' };
  return { outcome: 'error', error: code ? `connection failed (${code})` : 'connection failed' };
}
