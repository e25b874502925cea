import { Inject, Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import {
  SCRIPT_TYPE,
  STYLESHEET_TYPE,
  pageAnswer,
  pageFile,
  staticAnswer,
  type WebAnswer,
} from '../checkout/web-answer.js';
import type { ShopAddress } from './shop-address.js';

/** Where the demo shop is served, below CONTEXT_PATH; its script and stylesheet below it. */
export const DEMO_PATH = 'demo';
export const SANDBOX_ASSETS_PATH = `${DEMO_PATH}/assets`;

/** The sandbox's browser files, as served. */
export type SandboxAssetName = 'demo.js' | 'sandbox.css' | 'favicon.svg';

/** The sandbox pages' icon, an SVG drawing. */
const ICON_TYPE = 'image/svg+xml; charset=utf-8';

/**
 * The customer's countries the demo shop offers: those of the demo catalog (seeds/demo.json),
 * and one it has no pair for, to show what the checkout page says then.
 */
export const DEMO_COUNTRIES = [
  { code: 'IE', name: 'Ireland' },
  { code: 'DE', name: 'Germany' },
  { code: 'FR', name: 'France' },
  { code: 'ES', name: 'Spain' },
  { code: 'GB', name: 'United Kingdom' },
  { code: 'NG', name: 'Nigeria' },
  { code: 'KE', name: 'Kenya' },
  { code: 'BR', name: 'Brazil' },
  { code: 'US', name: 'United States (no pair in the demo catalog)' },
] as const;

/** What the sandbox's home page says about the demo merchant. */
export interface HomeView {
  /** The origin the browser uses, for the first request's URL. */
  origin: string;
  apiKey: string;
  /** Why the published key does not work, when it does not. */
  keyProblem?: string;
  callbackSecret: string;
  secretCurrent: boolean;
}

const file = (folder: 'views' | 'public', name: string) => pageFile(import.meta.url, folder, name);

/**
 * The sandbox's pages, rendered by Handlebars from `views/` like the checkout page (every value
 * escaped by the engine), and their script and stylesheet from `public/`, read once.
 */
@Injectable()
export class SandboxPages {
  private readonly home: Handlebars.TemplateDelegate;
  private readonly demo: Handlebars.TemplateDelegate;
  private readonly base: string;
  private readonly demoPath: string;
  readonly assets: Record<SandboxAssetName, WebAnswer>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.base = config.contextPath;
    this.demoPath = `${this.base}/${DEMO_PATH}`;
    const engine = Handlebars.create();
    this.home = engine.compile(file('views', 'home.hbs'));
    this.demo = engine.compile(file('views', 'demo.hbs'));
    this.assets = {
      'demo.js': staticAnswer(file('public', 'demo.js'), SCRIPT_TYPE),
      'sandbox.css': staticAnswer(file('public', 'sandbox.css'), STYLESHEET_TYPE),
      'favicon.svg': staticAnswer(file('public', 'favicon.svg'), ICON_TYPE),
    };
  }

  /** The home page: what runs here, where to go, the demo merchant's key and secret. */
  homePage(view: HomeView): WebAnswer {
    const html = this.home({
      ...view,
      keyActive: view.keyProblem === undefined,
      base: this.base,
      assets: `${this.base}/${SANDBOX_ASSETS_PATH}`,
    });
    return pageAnswer(html, { frameAncestors: [] });
  }

  /**
   * The demo shop's page, which frames the checkout page (same origin). Reached by a name the
   * shop is not called back at, it says where to open it: at the address the connection came to.
   */
  demoPage(at: ShopAddress): WebAnswer {
    const html = this.demo({
      base: this.base,
      assets: `${this.base}/${SANDBOX_ASSETS_PATH}`,
      countries: DEMO_COUNTRIES,
      originUsable: at.browser !== undefined,
      localDemo: `${at.local}${this.demoPath}`,
    });
    return pageAnswer(html, { frameAncestors: [], framesSelf: true });
  }
}
