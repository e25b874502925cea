import type { FailureReason } from './checkout-outcomes.js';

/** Every text of the checkout page: one entry per language, each with every key. */
export interface PageMessages {
  title: string;
  merchant: string;
  amount: string;
  description: string;
  choosePair: string;
  on: string;
  noPairs: string;
  /** The page of a checkout whose customer and address were erased: no country to offer for. */
  detailsErased: string;
  continue: string;
  cancel: string;
  chosen: string;
  sandboxNote: string;
  outcome: string;
  outcomePaid: string;
  outcomeFailed: string;
  reason: string;
  reasons: Record<FailureReason, string>;
  confirm: string;
  /** "Send exactly" 10.869566 USDT on TRON */
  sendExactly: string;
  toAddress: string;
  /** The labels of the amount and the address, each beside its copy button. */
  amountToSend: string;
  address: string;
  copy: string;
  /** The copy buttons' names for a screen reader: "Copy the amount", "Copy the address". */
  copyAmount: string;
  copyAddress: string;
  amountCopied: string;
  addressCopied: string;
  copyFailed: string;
  qrCode: string;
  /** `{asset}` and `{network}` filled in: the one warning the page gives about both. */
  networkWarning: string;
  quoteUntil: string;
  /** `{time}` filled in (`14:05`): the countdown to the quote's end. */
  quoteLeft: string;
  quoteRenewing: string;
  quoteExpired: string;
  quoteLocked: string;
  /** The payment's progress; `{n}`, `{required}`, `{received}`, `{remaining}`, `{asset}` filled in. */
  progressWaiting: string;
  progressSeen: string;
  progressUnderpaid: string;
  progressPaid: string;
  reload: string;
  noscriptPayment: string;
  sandboxFunds: string;
  sandboxDeposits: string;
  depositFull: string;
  depositUnder: string;
  depositOver: string;
  /** The page of a link no payment has. */
  unavailableTitle: string;
  unavailable: string;
  /** Why a payment on chain failed: less than the amount arrived before it expired. */
  underpaid: string;
  waiting: string;
  paid: string;
  failed: string;
  cancelled: string;
  expired: string;
  notCompleted: string;
  returnToShop: string;
  noscript: string;
  working: string;
  actionFailed: string;
}

const en: PageMessages = {
  title: 'Payment',
  merchant: 'Merchant',
  amount: 'Amount',
  description: 'Description',
  choosePair: 'Choose how to pay',
  on: 'on',
  noPairs: 'No crypto currency can be used to pay from your country. You can cancel this payment.',
  detailsErased:
    'The details of this payment were erased, so it can no longer be paid here. You can cancel this payment.',
  continue: 'Continue',
  cancel: 'Cancel payment',
  chosen: 'You pay with',
  sandboxNote: 'Sandbox: no money moves. Choose the outcome of this payment.',
  outcome: 'Outcome',
  outcomePaid: 'Paid',
  outcomeFailed: 'Failed',
  reason: 'Reason',
  reasons: {
    INSUFFICIENT_FUNDS: 'Insufficient funds',
    DECLINED: 'Payment declined',
    LIMIT_EXCEEDED: 'Amount over the limit',
    TECHNICAL_ERROR: 'Technical error',
  },
  confirm: 'Confirm outcome',
  sendExactly: 'Send exactly',
  toAddress: 'to this address:',
  amountToSend: 'Amount to send',
  address: 'Address',
  copy: 'Copy',
  copyAmount: 'Copy the amount',
  copyAddress: 'Copy the address',
  amountCopied: 'Amount copied.',
  addressCopied: 'Address copied.',
  copyFailed: 'Could not copy: select the text and copy it.',
  qrCode: 'QR code of this payment, for a wallet to scan',
  networkWarning:
    'Send only {asset} on {network}. Another asset, or {asset} on another network, is lost.',
  quoteUntil: 'This amount holds until',
  quoteLeft: '{time} left',
  quoteRenewing: 'The amount is being renewed…',
  quoteExpired:
    'This amount has ended and no new price is available yet. Do not send until a new amount shows.',
  quoteLocked: 'Your transfer was seen: this amount stands.',
  progressWaiting: 'Waiting for your transfer. This page updates by itself.',
  progressSeen: 'Transfer seen: {n} of {required} confirmations.',
  progressUnderpaid:
    'Received {received} {asset}: {remaining} {asset} is still missing. Send it to the same address.',
  progressPaid: 'Transfer confirmed.',
  reload: 'Reload this page',
  noscriptPayment: 'To see the progress of your transfer, reload this page.',
  sandboxFunds: 'Sandbox — never send real funds',
  sandboxDeposits: 'Send a made-up transfer to this address:',
  depositFull: 'Send the full amount',
  depositUnder: 'Send half (underpay)',
  depositOver: 'Send a tenth more (overpay)',
  unavailableTitle: 'This payment cannot be shown',
  unavailable: 'No payment is open with this link. Return to the shop to start again.',
  underpaid: 'Less than the amount due arrived; the merchant refunds what was received',
  waiting: 'Waiting for your payment to be confirmed. This page updates by itself.',
  paid: 'Payment received. Thank you.',
  failed: 'The payment failed.',
  cancelled: 'You cancelled this payment.',
  expired: 'This payment has expired.',
  notCompleted: 'This payment was not completed.',
  returnToShop: 'You can now return to the shop.',
  noscript: 'This payment page needs JavaScript.',
  working: 'One moment…',
  actionFailed: 'That did not work. Reload the page and try again.',
};

const de: PageMessages = {
  title: 'Zahlung',
  merchant: 'Händler',
  amount: 'Betrag',
  description: 'Beschreibung',
  choosePair: 'Wählen Sie, wie Sie zahlen',
  on: 'über',
  noPairs:
    'Aus Ihrem Land kann mit keiner Kryptowährung bezahlt werden. Sie können diese Zahlung abbrechen.',
  detailsErased:
    'Die Angaben zu dieser Zahlung wurden gelöscht; sie kann hier nicht mehr bezahlt werden. Sie können diese Zahlung abbrechen.',
  continue: 'Weiter',
  cancel: 'Zahlung abbrechen',
  chosen: 'Sie zahlen mit',
  sandboxNote: 'Sandbox: Es fließt kein Geld. Wählen Sie das Ergebnis dieser Zahlung.',
  outcome: 'Ergebnis',
  outcomePaid: 'Bezahlt',
  outcomeFailed: 'Fehlgeschlagen',
  reason: 'Grund',
  reasons: {
    INSUFFICIENT_FUNDS: 'Unzureichendes Guthaben',
    DECLINED: 'Zahlung abgelehnt',
    LIMIT_EXCEEDED: 'Betrag über dem Limit',
    TECHNICAL_ERROR: 'Technischer Fehler',
  },
  confirm: 'Ergebnis bestätigen',
  sendExactly: 'Senden Sie genau',
  toAddress: 'an diese Adresse:',
  amountToSend: 'Zu sendender Betrag',
  address: 'Adresse',
  copy: 'Kopieren',
  copyAmount: 'Betrag kopieren',
  copyAddress: 'Adresse kopieren',
  amountCopied: 'Betrag kopiert.',
  addressCopied: 'Adresse kopiert.',
  copyFailed: 'Kopieren ging nicht: Markieren und kopieren Sie den Text.',
  qrCode: 'QR-Code dieser Zahlung, für eine Wallet zum Scannen',
  networkWarning:
    'Senden Sie nur {asset} über {network}. Ein anderes Asset oder {asset} über ein anderes Netzwerk geht verloren.',
  quoteUntil: 'Dieser Betrag gilt bis',
  quoteLeft: 'noch {time}',
  quoteRenewing: 'Der Betrag wird erneuert …',
  quoteExpired:
    'Dieser Betrag ist abgelaufen, und es gibt noch keinen neuen Kurs. Senden Sie erst, wenn ein neuer Betrag erscheint.',
  quoteLocked: 'Ihre Überweisung wurde gesehen: Dieser Betrag gilt.',
  progressWaiting: 'Wir warten auf Ihre Überweisung. Diese Seite aktualisiert sich selbst.',
  progressSeen: 'Überweisung gesehen: {n} von {required} Bestätigungen.',
  progressUnderpaid:
    '{received} {asset} erhalten: Es fehlen noch {remaining} {asset}. Senden Sie sie an dieselbe Adresse.',
  progressPaid: 'Überweisung bestätigt.',
  reload: 'Seite neu laden',
  noscriptPayment: 'Um den Stand Ihrer Überweisung zu sehen, laden Sie diese Seite neu.',
  sandboxFunds: 'Sandbox — senden Sie niemals echtes Geld',
  sandboxDeposits: 'Eine erfundene Überweisung an diese Adresse senden:',
  depositFull: 'Den vollen Betrag senden',
  depositUnder: 'Die Hälfte senden (zu wenig)',
  depositOver: 'Ein Zehntel mehr senden (zu viel)',
  unavailableTitle: 'Diese Zahlung kann nicht angezeigt werden',
  unavailable:
    'Mit diesem Link ist keine Zahlung offen. Kehren Sie zum Shop zurück, um neu zu beginnen.',
  underpaid: 'Es kam weniger als der fällige Betrag an; der Händler erstattet, was eingegangen ist',
  waiting: 'Wir warten auf die Bestätigung Ihrer Zahlung. Diese Seite aktualisiert sich selbst.',
  paid: 'Zahlung erhalten. Vielen Dank.',
  failed: 'Die Zahlung ist fehlgeschlagen.',
  cancelled: 'Sie haben diese Zahlung abgebrochen.',
  expired: 'Diese Zahlung ist abgelaufen.',
  notCompleted: 'Diese Zahlung wurde nicht abgeschlossen.',
  returnToShop: 'Sie können jetzt zum Shop zurückkehren.',
  noscript: 'Diese Zahlungsseite benötigt JavaScript.',
  working: 'Einen Moment …',
  actionFailed: 'Das hat nicht geklappt. Laden Sie die Seite neu und versuchen Sie es noch einmal.',
};

/** The languages the page speaks; English when the merchant's preference is none of them. */
export const PAGE_LANGUAGES = { en, de } as const;
export type PageLanguage = keyof typeof PAGE_LANGUAGES;

/** The page's language for a `languagePreference` (`EN`, `de`, `de-AT`, ...): its first subtag. */
export function pageLanguage(preference: string | null | undefined): PageLanguage {
  const primary = (preference ?? '').split(/[-_]/)[0].toLowerCase();
  return primary in PAGE_LANGUAGES ? (primary as PageLanguage) : 'en';
}

/** A message with its `{name}` places filled in (a place without a value stays as it is). */
export function fillIn(message: string, values: Record<string, string | number>): string {
  return message.replace(/\{(\w+)\}/g, (place, name: string) =>
    name in values ? String(values[name]) : place,
  );
}
