/**
 * The groups of the OpenAPI document, in the order the docs page shows them: the names are those
 * the controllers give `@ApiTags`, and each group says what its operations are for. A group this
 * deployment serves nothing of (the sandbox's, in production) is left out of its document.
 */
export const OPENAPI_TAGS: readonly { name: string; description: string }[] = [
  {
    name: 'Catalog',
    description: 'The crypto currency and protocol pairs a merchant can pay out in, by country.',
  },
  {
    name: 'Payment status',
    description:
      "A payment session's status, looked up by its validation key after a callback (or at any time).",
  },
  {
    name: 'Checkout',
    description:
      'A payment from start to end: init-iframe (merchant), the widget script, and the checkout page the widget shows (HTML, its script and stylesheet, its actions).',
  },
  {
    name: 'Sandbox',
    description:
      'Only with CHECKOUT_SANDBOX=true (`npm start`), never in production: the home page, and the demo shop that runs the whole checkout in one browser window (its page, and its server routes as a merchant has them).',
  },
  {
    name: 'Health',
    description: 'Liveness and readiness probes for orchestrators and load balancers; no key.',
  },
  {
    name: 'Operator: catalog',
    description: 'Add, rename, switch on or off and remove the pairs the public catalog lists.',
  },
  {
    name: 'Operator: payment sessions',
    description: 'Report payment sessions and their transitions, and read their history.',
  },
  {
    name: 'Operator: merchants',
    description: 'Merchants, their API keys and the secrets that sign their callbacks.',
  },
  {
    name: 'Operator: deposits',
    description:
      "Paying a checkout on chain: merchants' watch-only deposit keys, the assets' rates, the deposit addresses a chain watcher watches and the deposits it reports.",
  },
  {
    name: 'Operator: callbacks',
    description: 'The callbacks a session caused, every attempt of each, and redelivery.',
  },
  {
    name: 'Operator: operators',
    description: 'People and programs with tokens of their own, each with a role.',
  },
  {
    name: 'Operator: audit trail',
    description:
      'Every change made through the operator API and every refused request, in a chain keyed with the audit key; its head, to keep outside the database.',
  },
  {
    name: 'Operator: metrics',
    description: 'Prometheus metrics of this instance.',
  },
];
