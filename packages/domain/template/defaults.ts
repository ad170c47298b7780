import type { TemplateKind, TemplateVersion } from './events.js';

/**
 * The service's own messages that a merchant can restyle: each purpose has a built-in template,
 * used until the merchant publishes a template of the same kind with that `purpose`.
 */
export interface BuiltInTemplate {
  purpose: string;
  kind: TemplateKind;
  description: string;
  version: Omit<TemplateVersion, 'createdAt'>;
}

const v = (variables: Record<string, unknown>, locales: TemplateVersion['locales'], sampleData: Record<string, unknown>): Omit<TemplateVersion, 'createdAt'> => ({
  version: 0,
  variables,
  locales,
  defaultLocale: 'en',
  sampleData,
});

const str = { type: 'string' };
const int = { type: 'integer' };

export const BUILT_IN_TEMPLATES: readonly BuiltInTemplate[] = [
  {
    purpose: 'webhook_endpoint_failing',
    kind: 'email',
    description: 'To the merchant when a webhook endpoint is marked failing after its last retry',
    version: v(
      { type: 'object', required: ['merchant_name', 'endpoint_id', 'endpoint_url', 'failures'], properties: { merchant_name: str, endpoint_id: str, endpoint_url: str, failures: int } },
      {
        en: {
          subject: 'Webhook endpoint failing: {{ endpoint_url }}',
          text: [
            'Hello {{ merchant_name }},',
            '',
            'Deliveries to your webhook endpoint {{ endpoint_id }} ({{ endpoint_url }}) have failed {{ failures }} times in a row, so it is now marked as failing.',
            'Events are still stored: once the endpoint answers with a 2xx again, replay the failed deliveries with POST /api/v1/webhook-replays.',
            '',
            '— Sika',
          ].join('\n'),
        },
        fr: {
          subject: 'Endpoint de webhook en échec : {{ endpoint_url }}',
          text: [
            'Bonjour {{ merchant_name }},',
            '',
            "Les livraisons vers votre endpoint {{ endpoint_id }} ({{ endpoint_url }}) ont échoué {{ failures }} fois de suite : il est maintenant marqué en échec.",
            'Les événements sont conservés : dès que l’endpoint répond 2xx, rejouez les livraisons échouées avec POST /api/v1/webhook-replays.',
            '',
            '— Sika',
          ].join('\n'),
        },
      },
      { merchant_name: 'Boutique Awa', endpoint_id: 'we_123', endpoint_url: 'https://example.com/hooks', failures: 6 },
    ),
  },
  {
    purpose: 'automation_disabled',
    kind: 'email',
    description: 'To the merchant when an automation is disabled after repeated failed runs',
    version: v(
      { type: 'object', required: ['merchant_name', 'automation_id', 'automation_name', 'failures', 'last_error'], properties: { merchant_name: str, automation_id: str, automation_name: str, failures: int, last_error: str } },
      {
        en: {
          subject: 'Automation disabled: {{ automation_name }}',
          text: [
            'Hello {{ merchant_name }},',
            '',
            'Your automation "{{ automation_name }}" ({{ automation_id }}) failed {{ failures }} runs in a row, so it has been disabled.',
            'Last error: {{ last_error }}',
            'Read its runs with GET /api/v1/automations/logs, fix it, then enable it again.',
            '',
            '— Sika',
          ].join('\n'),
        },
      },
      { merchant_name: 'Boutique Awa', automation_id: 'auto_123', automation_name: 'Dunning', failures: 5, last_error: 'HTTP 500' },
    ),
  },
  {
    purpose: 'customer_portal_code',
    kind: 'email',
    description: "To a merchant's customer: the code that signs them in to the customer portal",
    version: v(
      { type: 'object', required: ['code', 'minutes'], properties: { code: str, minutes: int } },
      {
        en: {
          subject: 'Your sign-in code: {{ code }}',
          text: 'Your code: {{ code }}\n\nIt signs you in to your customer account for {{ minutes }} minutes. If you did not ask for it, ignore this e-mail.',
        },
        fr: {
          subject: 'Votre code de connexion : {{ code }}',
          text: 'Votre code : {{ code }}\n\nIl vous connecte à votre espace client pendant {{ minutes }} minutes. Si vous ne l’avez pas demandé, ignorez cet e-mail.',
        },
      },
      { code: '123456', minutes: 10 },
    ),
  },
  {
    purpose: 'receipt',
    kind: 'receipt',
    description: 'The receipt of a payment, as a PDF',
    version: v(
      { type: 'object', required: ['merchant_name', 'amount', 'currency', 'payment_id'], properties: { merchant_name: str, amount: str, currency: str, payment_id: str, customer_email: str, paid_at: str } },
      {
        en: { title: 'Receipt from {{ merchant_name }}', text: 'Amount paid: {{ amount }} {{ currency | upcase }}\nPayment: {{ payment_id }}\n{% if paid_at %}Paid on {{ paid_at }}\n{% endif %}{% if customer_email %}Sent to {{ customer_email }}{% endif %}' },
        fr: { title: 'Reçu de {{ merchant_name }}', text: 'Montant payé : {{ amount }} {{ currency | upcase }}\nPaiement : {{ payment_id }}\n{% if paid_at %}Payé le {{ paid_at }}\n{% endif %}{% if customer_email %}Envoyé à {{ customer_email }}{% endif %}' },
      },
      { merchant_name: 'Boutique Awa', amount: '10 000', currency: 'xof', payment_id: 'pi_123', customer_email: 'client@example.com', paid_at: '2026-01-01' },
    ),
  },
  {
    purpose: 'invoice',
    kind: 'invoice',
    description: 'An invoice, as a PDF',
    version: v(
      {
        type: 'object',
        required: ['merchant_name', 'invoice_id', 'amount_due', 'currency', 'lines'],
        properties: {
          merchant_name: str,
          invoice_id: str,
          amount_due: str,
          currency: str,
          due_date: str,
          lines: { type: 'array', items: { type: 'object', required: ['description', 'amount'], properties: { description: str, amount: str } } },
        },
      },
      {
        en: { title: 'Invoice {{ invoice_id }} from {{ merchant_name }}', text: '{% for line in lines %}{{ line.description }}: {{ line.amount }}\n{% endfor %}Amount due: {{ amount_due }} {{ currency | upcase }}{% if due_date %}\nDue on {{ due_date }}{% endif %}' },
        fr: { title: 'Facture {{ invoice_id }} de {{ merchant_name }}', text: '{% for line in lines %}{{ line.description }} : {{ line.amount }}\n{% endfor %}Montant dû : {{ amount_due }} {{ currency | upcase }}{% if due_date %}\nÀ payer le {{ due_date }}{% endif %}' },
      },
      { merchant_name: 'Boutique Awa', invoice_id: 'in_123', amount_due: '25 000', currency: 'xof', due_date: '2026-02-01', lines: [{ description: 'Tissu wax', amount: '25 000' }] },
    ),
  },
];

export const builtInTemplate = (purpose: string): BuiltInTemplate | undefined => BUILT_IN_TEMPLATES.find((t) => t.purpose === purpose);
