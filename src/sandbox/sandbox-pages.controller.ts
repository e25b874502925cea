import { Controller, UseInterceptors } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../http/endpoint.decorator.js';
import { assetResponse, htmlResponse, type WebAnswer } from '../checkout/web-answer.js';
import { WebAnswerInterceptor } from '../checkout/web-answer.interceptor.js';
import { SandboxHome } from './sandbox-home.service.js';
import { DEMO_PATH, SANDBOX_ASSETS_PATH, SandboxPages } from './sandbox-pages.js';
import { type ShopAddress, ShopAddressOfRequest } from './shop-address.js';

export const SANDBOX_TAG = 'Sandbox';

@ApiTags(SANDBOX_TAG)
@Controller()
@UseInterceptors(WebAnswerInterceptor)
export class SandboxPagesController {
  constructor(
    private readonly pages: SandboxPages,
    private readonly home: SandboxHome,
  ) {}

  @Endpoint({
    method: 'GET',
    path: '',
    operationId: 'getSandboxHome',
    summary: "The sandbox's home page (HTML)",
    description:
      'What runs in the sandbox, links to the demo shop and the API docs, the demo merchant’s ' +
      'key and callback secret while they work, and a first request.',
    access: 'public',
    responses: [htmlResponse('The page.')],
    errors: ['SERVICE_UNAVAILABLE'],
  })
  async homePage(@ShopAddressOfRequest() at: ShopAddress): Promise<WebAnswer> {
    return this.pages.homePage(await this.home.view(at));
  }

  @Endpoint({
    method: 'GET',
    path: DEMO_PATH,
    operationId: 'getDemoShop',
    summary: 'The demo shop (HTML)',
    description:
      'A shop page that embeds the widget as a merchant would: its server starts the payment ' +
      'with init-iframe and the demo key, the page calls `showPaymentIframe`, and it shows the ' +
      "signed callbacks the shop received and the status lookup's answer. Opened at a name of " +
      'this server the shop is not called back at, it says where to open it.',
    access: 'public',
    responses: [htmlResponse('The page.')],
    errors: [],
  })
  demoPage(@ShopAddressOfRequest() at: ShopAddress): WebAnswer {
    return this.pages.demoPage(at);
  }

  @Endpoint({
    method: 'GET',
    path: `${SANDBOX_ASSETS_PATH}/demo.js`,
    operationId: 'getDemoShopScript',
    summary: "The demo shop page's script (JavaScript)",
    description: 'Starts a payment through the shop, shows the widget, and follows the payment.',
    access: 'public',
    responses: [assetResponse('text/javascript', '(function () { … })();')],
    errors: [],
  })
  script(): WebAnswer {
    return this.pages.assets['demo.js'];
  }

  @Endpoint({
    method: 'GET',
    path: `${SANDBOX_ASSETS_PATH}/sandbox.css`,
    operationId: 'getSandboxStylesheet',
    summary: "The sandbox pages' stylesheet (CSS)",
    description: 'Readable from 320 px wide, text contrast at least 7:1, a visible focus ring.',
    access: 'public',
    responses: [assetResponse('text/css', 'main { max-width: 72rem; }')],
    errors: [],
  })
  stylesheet(): WebAnswer {
    return this.pages.assets['sandbox.css'];
  }

  @Endpoint({
    method: 'GET',
    path: `${SANDBOX_ASSETS_PATH}/favicon.svg`,
    operationId: 'getSandboxIcon',
    summary: "The sandbox pages' icon (SVG)",
    description: 'The icon the home page and the demo shop name, so a browser tab shows it.',
    access: 'public',
    responses: [assetResponse('image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg">…</svg>')],
    errors: [],
  })
  icon(): WebAnswer {
    return this.pages.assets['favicon.svg'];
  }
}
