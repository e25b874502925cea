import QRCode from 'qrcode';

/**
 * A payment URI's QR code as an SVG document the service sends itself: one white square and one
 * black path, no script, no link, nothing fetched. Error correction M (15 % of the code may be
 * unreadable: a screen's glare, a crease) and the 4-module quiet zone the QR standard asks for.
 */
export async function qrCodeSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return svg.trim();
}
