import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A merchant's shop page on its own origin, as the browser tests open it. */
export interface MerchantSite {
  server: Server;
  origin: string;
  close(): Promise<void>;
}

/**
 * A merchant's page on another origin (its own loopback port), embedding the widget exactly as
 * integrations do: the script from the service, then showPaymentIframe with the token of its
 * `?token=`. What the widget calls is written into the page (`#events li`), where the test reads
 * it.
 */
export async function merchantSite(serviceUrl: string): Promise<MerchantSite> {
  const server = createServer((request, response) => {
    const token = new URL(request.url ?? '/', 'http://x').searchParams.get('token') ?? '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Shop</title>
<script src="${serviceUrl}/widgets/sgpg.js"></script></head>
<body><h1>Shop</h1><div id="widget-container"></div><ol id="events"></ol>
<script>
  function note(name) { return function (detail) {
    var li = document.createElement('li'); li.textContent = name + ':' + JSON.stringify(detail);
    document.getElementById('events').appendChild(li); }; }
  window.showPaymentIframe('widget-container', { token: ${JSON.stringify(token)},
    success: note('success'), fail: note('fail'), cancel: note('cancel'), complete: note('complete') });
</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
