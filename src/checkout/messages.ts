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
  qrCode: string;
  onlyThis: string;
  quoteUntil: string;
  sandboxFunds: string;
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
  qrCode: 'QR code of this payment, for a wallet to scan',
  onlyThis: 'Send only this currency, on this network: anything else may be lost.',
  quoteUntil: 'This amount holds until',
  sandboxFunds: 'Sandbox — never send real funds',
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
  qrCode: 'QR-Code dieser Zahlung, für eine Wallet zum Scannen',
  onlyThis: 'Senden Sie nur diese Währung, über dieses Netzwerk: alles andere kann verloren gehen.',
  quoteUntil: 'Dieser Betrag gilt bis',
  sandboxFunds: 'Sandbox — senden Sie niemals echtes Geld',
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
