/**
 * What the dashboard suggests next to a merchant on a page (docs/intelligence.md, "Context
 * suggestions"): pure rules over facts the read models give about the merchant.
 */

export type DashboardPage = 'home' | 'payments' | 'payouts' | 'customers' | 'developers' | 'settings';
export const DASHBOARD_PAGES: readonly DashboardPage[] = ['home', 'payments', 'payouts', 'customers', 'developers', 'settings'];

export interface MerchantFacts {
  hasPayoutDestination: boolean;
  hasSucceededSandboxPayment: boolean;
  hasWebhookEndpoint: boolean;
  hasLogo: boolean;
  hasPaymentLink: boolean;
  hasRecipients: boolean;
  hasCustomers: boolean;
  /** Payments that failed since yesterday (UTC). */
  recentFailedPayments: number;
  /** Payouts on their way that are late. */
  delayedPayouts: number;
}

export interface Suggestion {
  id: string;
  object: 'context_suggestion';
  kind: 'onboarding' | 'attention' | 'feature';
  title: string;
  detail: string;
  /** The operation or page that acts on it. */
  action: string;
  /** Pages it belongs to; shown first there. */
  pages: DashboardPage[];
}

interface Rule {
  applies(f: MerchantFacts): boolean;
  suggestion(f: MerchantFacts): Omit<Suggestion, 'object'>;
}

/** In priority order: problems first, then the go-live steps left, then features not used yet. */
const RULES: readonly Rule[] = [
  {
    applies: (f) => f.recentFailedPayments > 0,
    suggestion: (f) => ({
      id: 'failed_payments',
      kind: 'attention',
      title: `${f.recentFailedPayments} payment${f.recentFailedPayments === 1 ? '' : 's'} failed since yesterday`,
      detail: 'See which operators failed and why.',
      action: 'GET /api/v1/intelligence/kpis/breakdown?dimension=operator',
      pages: ['home', 'payments'],
    }),
  },
  {
    applies: (f) => f.delayedPayouts > 0,
    suggestion: (f) => ({
      id: 'delayed_payouts',
      kind: 'attention',
      title: `${f.delayedPayouts} payout${f.delayedPayouts === 1 ? ' is' : 's are'} late`,
      detail: 'The decisions say why each was delayed.',
      action: 'GET /api/v1/intelligence/decisions?kind=payout_delay',
      pages: ['home', 'payouts'],
    }),
  },
  {
    applies: (f) => !f.hasSucceededSandboxPayment,
    suggestion: () => ({
      id: 'first_sandbox_payment',
      kind: 'onboarding',
      title: 'Take a first payment in sandbox',
      detail: 'Create and confirm a payment intent with a sandbox key.',
      action: 'POST /api/v1/payment-intents',
      pages: ['home', 'payments', 'developers'],
    }),
  },
  {
    applies: (f) => !f.hasPayoutDestination,
    suggestion: () => ({
      id: 'payout_destination',
      kind: 'onboarding',
      title: 'Save a payout destination',
      detail: 'Where your balance is paid out to.',
      action: 'POST /api/v1/merchant/settings/payouts/destinations',
      pages: ['home', 'payouts', 'settings'],
    }),
  },
  {
    applies: (f) => !f.hasWebhookEndpoint,
    suggestion: () => ({
      id: 'webhook_endpoint',
      kind: 'onboarding',
      title: 'Register a webhook endpoint',
      detail: 'Hear about payments and payouts as they happen instead of polling.',
      action: 'POST /api/v1/webhook-endpoints',
      pages: ['home', 'developers'],
    }),
  },
  {
    applies: (f) => !f.hasLogo,
    suggestion: () => ({ id: 'logo', kind: 'onboarding', title: 'Upload your logo', detail: 'Shown to payers on checkout and invoices.', action: 'POST /api/v1/assets', pages: ['home', 'settings'] }),
  },
  {
    applies: (f) => !f.hasPaymentLink,
    suggestion: () => ({
      id: 'payment_links',
      kind: 'feature',
      title: 'Get paid with a link',
      detail: 'A payment link takes payments without any code: share it by SMS or WhatsApp.',
      action: 'POST /api/v1/payment_links',
      pages: ['home', 'payments'],
    }),
  },
  {
    applies: (f) => !f.hasRecipients,
    suggestion: () => ({ id: 'payout_engine', kind: 'feature', title: 'Pay many people at once', detail: 'Save recipients and send a payout batch from a CSV file.', action: 'POST /api/v1/payout-engine/recipients', pages: ['payouts'] }),
  },
  {
    applies: (f) => !f.hasCustomers,
    suggestion: () => ({
      id: 'customers',
      kind: 'feature',
      title: 'Keep track of who pays you',
      detail: 'Attach payments to customers to see who is new, active or about to churn.',
      action: 'GET /api/v1/merchant/customers',
      pages: ['customers', 'payments'],
    }),
  },
];

/** The suggestions for these facts: those of `page` first (all when no page is named), each kept in priority order. */
export function suggest(facts: MerchantFacts, page: DashboardPage | undefined): Suggestion[] {
  const all = RULES.filter((r) => r.applies(facts)).map((r) => ({ ...r.suggestion(facts), object: 'context_suggestion' as const }));
  if (!page) return all;
  return [...all.filter((s) => s.pages.includes(page)), ...all.filter((s) => !s.pages.includes(page))];
}
