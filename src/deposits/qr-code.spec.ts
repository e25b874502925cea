import { Resvg } from '@resvg/resvg-js';
import jsqr from 'jsqr';
import { qrCodeSvg } from './qr-code.js';

/** Draws the SVG as a renderer would (resvg), 8 pixels a module, and reads it with a QR decoder. */
function decode(svg: string): string | undefined {
  const modules = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)![1]);
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: modules * 8 } }).render();
  const pixels = new Uint8ClampedArray(image.pixels);
  // jsqr is a CommonJS module whose types declare its function as the default export.
  return jsqr.default(pixels, image.width, image.height)?.data;
}

const URIS = [
  'bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.00030551',
  'ethereum:0x9858EfFD232B4033E47d90003D41EC34EcaEda94@1?value=50000000000000000',
  'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&uint256=10712346',
  'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
];

describe('QR codes', () => {
  it.each(URIS)('draws %s so that a decoder reads it back', async (uri) => {
    expect(decode(await qrCodeSvg(uri))).toBe(uri);
  });

  it('draws one SVG of a white square and a black path: no script, link or outside reference', async () => {
    const svg = await qrCodeSvg(URIS[2]);
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+" shape-rendering="crispEdges">/,
    );
    expect(svg.endsWith('</svg>')).toBe(true);
    const tags = [...svg.matchAll(/<\/?([a-zA-Z:-]+)/g)].map(([, tag]) => tag);
    expect(new Set(tags)).toEqual(new Set(['svg', 'path']));
    const attributes = [...svg.matchAll(/\s([a-zA-Z:-]+)="/g)].map(([, name]) => name);
    expect(new Set(attributes)).toEqual(
      new Set(['xmlns', 'viewBox', 'shape-rendering', 'fill', 'stroke', 'd']),
    );
    expect(svg).not.toMatch(/script|href|url\(|@import|on[a-z]+=|<!|<\?/i);
  });
});
