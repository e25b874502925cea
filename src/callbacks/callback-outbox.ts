import { hasPlainHost } from '../common/host-names.js';
import type { Tx } from '../database/transactions.js';

/** A callback to store with the transition that causes it. */
export interface NewCallback {
  validationKey: string;
  merchantId: string;
  /** The session status the transition reached. */
  status: string;
  url: string;
  /** The exact bytes every attempt sends. */
  body: string;
}

/** Longest callback URL accepted. */
export const MAX_CALLBACK_URL_LENGTH = 2048;
export const CALLBACK_URL_RULE = `must be an absolute http or https URL of at most ${MAX_CALLBACK_URL_LENGTH} characters, whose host is a DNS name or an IP address, without a user name or password`;

/**
 * A callback URL as the audit trail, the callbacks list and operators below the role `payments`
 * see it: without its query and fragment, which may carry a merchant's token. The whole URL is
 * for delivering, and for operators who may see personal data.
 */
export function shownCallbackUrl(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

/**
 * True for an absolute http(s) URL with a host, at most MAX_CALLBACK_URL_LENGTH characters, and
 * without user information: a password in a URL would be stored, shown to operators and logged
 * like the rest of the URL (the receiver authenticates callbacks by their signature instead). The
 * host is a DNS name or an IP literal: its origin may frame the checkout page, so it is written
 * into a Content-Security-Policy, where `*` or `;` would mean something else.
 */
export function isCallbackUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_CALLBACK_URL_LENGTH || /\s/.test(value)) {
    return false;
  }
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      hasPlainHost(url) &&
      url.username === '' &&
      url.password === '' &&
      // `https://@host/` parses with an empty user name, but still names one.
      !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)
    );
  } catch {
    return false;
  }
}

/**
 * Where transitions leave the callbacks they cause: inside their own transaction, so a callback
 * exists exactly when its transition was committed.
 */
export abstract class CallbackOutbox {
  abstract enqueue(tx: Tx, callbacks: readonly NewCallback[]): Promise<void>;

  /** Why this URL may not receive callbacks here (production wants https), or undefined. */
  abstract urlRefusal(url: string): string | undefined;

  /**
   * Rewrites the bodies of the session's callbacks, sent or not (`rewrite` answers undefined to
   * leave a body as it is): erasing personal data reaches every copy.
   */
  abstract rewriteBodies(
    tx: Tx,
    validationKey: string,
    rewrite: (body: string) => string | undefined,
  ): Promise<void>;
}
