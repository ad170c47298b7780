import type { TemplateKind, TemplateVersion } from './events.js';

/**
 * The service's own messages that a merchant can restyle: each purpose has a built-in template,
 * used until the merchant publishes a template of the same kind with that `purpose`.
 */
export interface BuiltInTemplate {
  purpose: string;
  kind: TemplateKind;
  description: string;
  /** Whether a merchant may replace it: not the account messages, which are Sika's to its users, not a merchant's. */
  overridable: boolean;
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

/** An account message: English, e-mail-shaped (by SMS the subject prefixes the text), not for merchants to replace. */
const account = (purpose: string, description: string, variables: Record<string, Record<string, unknown>>, subject: string, text: string, sampleData: Record<string, unknown>): BuiltInTemplate => ({
  purpose,
  kind: 'email',
  overridable: false,
  description,
  version: v({ type: 'object', required: Object.keys(variables).filter((k) => k !== 'google'), properties: variables }, { en: { subject, text } }, sampleData),
});

const IF_NOT_YOU = "If it was not you, {% if google %}disconnect it, {% endif %}reset your password at once and tell your organization's owner.";

/** The messages to dashboard users: codes, links, invitations, security notices (docs/accounts.md). */
const ACCOUNT_TEMPLATES: BuiltInTemplate[] = [
  account('signup_code', 'The pre-signup code, by e-mail or SMS', { code: str }, 'Your Sika code', 'Your Sika verification code is {{ code }}. It expires in 10 minutes.', { code: '123456' }),
  account(
    'signup_existing_account',
    'Instead of a pre-signup code, to an address that already has an account',
    {},
    'You already have a Sika account',
    'Someone asked to sign up to Sika with this address, which already has an account. Sign in, or reset your password if you forgot it. If it was not you, ignore this message.',
    {},
  ),
  account(
    'magic_link',
    'A sign-in link',
    { minutes: int, url: str, token: str },
    'Sign in to Sika',
    'Sign in with this link (valid {{ minutes }} minutes, once): {{ url }}\n\nOr send this token to POST /api/v1/auth/magic-link/verify: {{ token }}\n\nIf you did not ask for it, ignore this message.',
    { minutes: 15, url: 'https://sika.example/dashboard/magic-link?token=ml_x', token: 'ml_x' },
  ),
  account(
    'password_reset',
    'A password reset link',
    { minutes: int, url: str, token: str },
    'Reset your Sika password',
    'Choose a new password with this link (valid {{ minutes }} minutes, once): {{ url }}\n\nOr send this token with newPassword to POST /api/v1/auth/reset-password: {{ token }}\n\nIf you did not ask for it, ignore this message: your password stays as it is.',
    { minutes: 30, url: 'https://sika.example/dashboard/reset-password?token=pr_x', token: 'pr_x' },
  ),
  account('password_changed', 'After a password reset', {}, 'Your Sika password was changed', 'Your password was reset and every session was signed out. If it was not you, reset it again at once and tell your organization owner.', {}),
  account(
    'invitation',
    'An invitation to join an organization',
    { organization: str, role: str, url: str, token: str },
    'An invitation to an organization on Sika',
    'A member of an organization on Sika invites you to join it as {{ role }}.\n\nOrganization name, as its members wrote it (Sika does not check it): "{{ organization }}"\n\nAccept within 7 days: {{ url }}\n\nOr send this token to POST /api/v1/invitations/accept: {{ token }}\n\nIf you do not know this organization, ignore this message: nothing happens unless you accept.',
    { organization: 'Boutique Awa', role: 'developer', url: 'https://sika.example/dashboard/invitation?token=inv_x', token: 'inv_x' },
  ),
  account('mfa_code', 'A second-factor code by e-mail', { code: str, purpose: str }, 'Your Sika security code', 'Your Sika security code is {{ code }} (for {{ purpose }}). It expires in 5 minutes.', { code: '123456', purpose: 'login' }),
  account(
    'contact_proof_code',
    'A code proving the user receives at their address or number',
    { code: str, what: { enum: ['address', 'number'] } },
    'Your Sika code',
    'Your Sika code to confirm this {{ what }} is {{ code }}. It expires in 10 minutes.',
    { code: '123456', what: 'address' },
  ),
  account(
    'email_change',
    'The link confirming a new e-mail address',
    { url: str, token: str },
    'Confirm your new Sika e-mail address',
    'Confirm this address for your Sika account (valid 1 hour, once): {{ url }}\n\nOr send this token to POST /api/v1/auth/email-change/confirm: {{ token }}',
    { url: 'https://sika.example/dashboard/email-change?token=ec_x', token: 'ec_x' },
  ),
  account('phone_change_code', 'The code confirming a new phone number (SMS)', { code: str }, 'Sika', 'Your Sika code to confirm this phone number is {{ code }}. It expires in 10 minutes.', { code: '123456' }),
  account('security_notice', 'A factor added or removed, an address or password changed', { subject: str, text: str, google: { type: 'boolean' } }, '{{ subject }}', `{{ text }}\n\n${IF_NOT_YOU}`, {
    subject: 'A passkey was removed from your Sika account',
    text: 'It can no longer sign in.',
  }),
  account('activation_decision', 'The platform\'s decision on the merchant\'s activation application, in words (docs/merchants.md, "Going live")', { subject: str, text: str }, '{{ subject }}', '{{ text }}\n\n— Sika', {
    subject: 'Your Sika account is approved: live payments are open',
    text: 'Your activation application is approved.',
  }),
];

export const BUILT_IN_TEMPLATES: readonly BuiltInTemplate[] = [
  ...ACCOUNT_TEMPLATES,
  {
    purpose: 'webhook_endpoint_failing',
    kind: 'email',
    overridable: true,
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
            'Les livraisons vers votre endpoint {{ endpoint_id }} ({{ endpoint_url }}) ont échoué {{ failures }} fois de suite : il est maintenant marqué en échec.',
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
    purpose: 'dispute_opened',
    kind: 'email',
    overridable: true,
    description: 'To the merchant when the card network opens a dispute of one of its payments, with the evidence due date (docs/disputes.md)',
    version: v(
      {
        type: 'object',
        required: ['merchant_name', 'dispute_id', 'payment_intent', 'amount', 'reason', 'evidence_due_by', 'fee'],
        properties: { merchant_name: str, dispute_id: str, payment_intent: str, amount: str, reason: str, evidence_due_by: str, fee: str },
      },
      {
        en: {
          subject: 'A payment of {{ amount }} is disputed: answer by {{ evidence_due_by }}',
          text: [
            'Hello {{ merchant_name }},',
            '',
            "The payer's bank disputes payment {{ payment_intent }} (reason: {{ reason }}). Dispute {{ dispute_id }} holds {{ amount }} on your reserved balance while it is decided{% if fee %}; its fee of {{ fee }} is charged{% endif %}.",
            'Send your evidence (POST /api/v1/disputes/{{ dispute_id }}/evidence) or accept it before {{ evidence_due_by }}: after that date the dispute is lost.',
            '',
            '— Sika',
          ].join('\n'),
        },
        fr: {
          subject: 'Un paiement de {{ amount }} est contesté : répondez avant le {{ evidence_due_by }}',
          text: [
            'Bonjour {{ merchant_name }},',
            '',
            'La banque du payeur conteste le paiement {{ payment_intent }} (motif : {{ reason }}). Le litige {{ dispute_id }} retient {{ amount }} sur votre solde réservé le temps de la décision{% if fee %} ; ses frais de {{ fee }} sont prélevés{% endif %}.',
            'Envoyez vos preuves (POST /api/v1/disputes/{{ dispute_id }}/evidence) ou acceptez-le avant le {{ evidence_due_by }} : passé cette date, le litige est perdu.',
            '',
            '— Sika',
          ].join('\n'),
        },
      },
      { merchant_name: 'Boutique Awa', dispute_id: 'dp_123', payment_intent: 'pi_123', amount: 'NGN 5,000.00', reason: 'fraud', evidence_due_by: '2026-12-05 10:00 UTC', fee: 'NGN 1,500.00' },
    ),
  },
  {
    purpose: 'dispute_closed',
    kind: 'email',
    overridable: true,
    description: 'To the merchant when a dispute closes: won, lost or accepted (docs/disputes.md)',
    version: v(
      {
        type: 'object',
        required: ['merchant_name', 'dispute_id', 'payment_intent', 'amount', 'outcome'],
        properties: { merchant_name: str, dispute_id: str, payment_intent: str, amount: str, outcome: { enum: ['won', 'lost', 'accepted'] } },
      },
      {
        en: {
          subject: '{% if outcome == "won" %}Dispute won{% elsif outcome == "lost" %}Dispute lost{% else %}Dispute accepted{% endif %}: {{ amount }}',
          text: [
            'Hello {{ merchant_name }},',
            '',
            'Dispute {{ dispute_id }} of payment {{ payment_intent }} is closed: {% if outcome == "won" %}it was decided for you, and {{ amount }} is back on your available balance.{% elsif outcome == "lost" %}it was decided for the payer, who keeps {{ amount }}; it left your reserved balance.{% else %}you accepted it, so the payer keeps {{ amount }}; it left your reserved balance.{% endif %}',
            '',
            '— Sika',
          ].join('\n'),
        },
        fr: {
          subject: '{% if outcome == "won" %}Litige gagné{% elsif outcome == "lost" %}Litige perdu{% else %}Litige accepté{% endif %} : {{ amount }}',
          text: [
            'Bonjour {{ merchant_name }},',
            '',
            'Le litige {{ dispute_id }} du paiement {{ payment_intent }} est clos : {% if outcome == "won" %}il a été tranché en votre faveur, et {{ amount }} revient sur votre solde disponible.{% elsif outcome == "lost" %}il a été tranché en faveur du payeur, qui garde {{ amount }} ; le montant a quitté votre solde réservé.{% else %}vous l’avez accepté : le payeur garde {{ amount }}, qui a quitté votre solde réservé.{% endif %}',
            '',
            '— Sika',
          ].join('\n'),
        },
      },
      { merchant_name: 'Boutique Awa', dispute_id: 'dp_123', payment_intent: 'pi_123', amount: 'NGN 5,000.00', outcome: 'won' },
    ),
  },
  {
    purpose: 'automation_disabled',
    kind: 'email',
    overridable: true,
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
    overridable: true,
    description: "To a merchant's customer: the code that signs them in to the customer portal",
    version: v(
      { type: 'object', required: ['code', 'minutes'], properties: { code: str, minutes: int } },
      {
        en: {
          subject: 'Your sign-in code',
          text: 'Your code: {{ code }}\n\nIt signs you in to your customer account for {{ minutes }} minutes. If you did not ask for it, ignore this e-mail.',
        },
        fr: {
          subject: 'Votre code de connexion',
          text: 'Votre code : {{ code }}\n\nIl vous connecte à votre espace client pendant {{ minutes }} minutes. Si vous ne l’avez pas demandé, ignorez cet e-mail.',
        },
      },
      { code: '123456', minutes: 10 },
    ),
  },
  {
    purpose: 'invoice_sent',
    kind: 'email',
    overridable: true,
    description: "To a merchant's customer: an invoice, with the link to see, download and pay it",
    version: v(
      {
        type: 'object',
        required: ['merchant_name', 'invoice_number', 'amount_due', 'url'],
        properties: { merchant_name: str, invoice_number: str, amount_due: str, due_date: str, memo: str, url: str },
      },
      {
        en: {
          subject: 'Invoice {{ invoice_number }} from {{ merchant_name }}',
          text: '{{ merchant_name }} sent you invoice {{ invoice_number }} of {{ amount_due }}{% if due_date %}, due on {{ due_date }}{% endif %}.\n{% if memo %}\n{{ memo }}\n{% endif %}\nSee it, download it and pay it by mobile money: {{ url }}',
        },
        fr: {
          subject: 'Facture {{ invoice_number }} de {{ merchant_name }}',
          text: '{{ merchant_name }} vous a envoyé la facture {{ invoice_number }} de {{ amount_due }}{% if due_date %}, à payer avant le {{ due_date }}{% endif %}.\n{% if memo %}\n{{ memo }}\n{% endif %}\nConsultez-la, téléchargez-la et payez-la par mobile money : {{ url }}',
        },
      },
      { merchant_name: 'Boutique Awa', invoice_number: 'INV-7K2M9Q4X', amount_due: '25 000 FCFA', due_date: '2026-02-01', memo: 'Merci !', url: 'https://sika.example/hosted/invoices/in_123' },
    ),
  },
  {
    purpose: 'invoice_reminder',
    kind: 'email',
    overridable: true,
    description: "To a merchant's customer: a reminder of an invoice due soon or overdue (the automations' send_invoice_reminders step)",
    version: v(
      {
        type: 'object',
        required: ['merchant_name', 'invoice_number', 'amount_due', 'due_date', 'days', 'overdue', 'url'],
        properties: { merchant_name: str, invoice_number: str, amount_due: str, due_date: str, days: int, overdue: { type: 'boolean' }, url: str },
      },
      {
        en: {
          subject: '{% if overdue %}Overdue: invoice{% else %}Reminder: invoice{% endif %} {{ invoice_number }} from {{ merchant_name }}',
          text: '{% if overdue %}Invoice {{ invoice_number }} from {{ merchant_name }}, {{ amount_due }}, was due on {{ due_date }}, {{ days }} day{% if days > 1 %}s{% endif %} ago.{% else %}Invoice {{ invoice_number }} from {{ merchant_name }}, {{ amount_due }}, is due on {{ due_date }}, in {{ days }} day{% if days > 1 %}s{% endif %}.{% endif %}\n\nSee it and pay it by mobile money or card: {{ url }}\n\nAlready paid? Thank you, and ignore this e-mail.',
        },
        fr: {
          subject: '{% if overdue %}En retard : facture{% else %}Rappel : facture{% endif %} {{ invoice_number }} de {{ merchant_name }}',
          text: '{% if overdue %}La facture {{ invoice_number }} de {{ merchant_name }}, {{ amount_due }}, était à payer le {{ due_date }}, il y a {{ days }} jour{% if days > 1 %}s{% endif %}.{% else %}La facture {{ invoice_number }} de {{ merchant_name }}, {{ amount_due }}, est à payer le {{ due_date }}, dans {{ days }} jour{% if days > 1 %}s{% endif %}.{% endif %}\n\nConsultez-la et payez-la par mobile money ou par carte : {{ url }}\n\nDéjà payée ? Merci, et ignorez cet e-mail.',
        },
      },
      { merchant_name: 'Boutique Awa', invoice_number: 'INV-7K2M9Q4X', amount_due: '25 000 FCFA', due_date: '2026-02-01', days: 3, overdue: false, url: 'https://sika.example/hosted/invoices/in_123' },
    ),
  },
  {
    purpose: 'invoice_receipt',
    kind: 'email',
    overridable: true,
    description: "To a merchant's customer: the receipt of an invoice paid",
    version: v(
      {
        type: 'object',
        required: ['merchant_name', 'invoice_number', 'amount', 'paid_at', 'reference', 'url'],
        properties: { merchant_name: str, invoice_number: str, amount: str, paid_at: str, method: str, reference: str, url: str },
      },
      {
        en: {
          subject: 'Receipt for invoice {{ invoice_number }} from {{ merchant_name }}',
          text: 'Thank you: {{ merchant_name }} received {{ amount }} for invoice {{ invoice_number }} on {{ paid_at }}{% if method %} ({{ method }}){% endif %}.\nReference: {{ reference }}\n\nThe invoice: {{ url }}',
        },
        fr: {
          subject: 'Reçu de la facture {{ invoice_number }} de {{ merchant_name }}',
          text: 'Merci : {{ merchant_name }} a reçu {{ amount }} pour la facture {{ invoice_number }} le {{ paid_at }}{% if method %} ({{ method }}){% endif %}.\nRéférence : {{ reference }}\n\nLa facture : {{ url }}',
        },
      },
      { merchant_name: 'Boutique Awa', invoice_number: 'INV-7K2M9Q4X', amount: '25 000 FCFA', paid_at: '2026-02-01', method: 'Orange Money', reference: 'pi_123', url: 'https://sika.example/hosted/invoices/in_123' },
    ),
  },
  {
    purpose: 'receipt',
    kind: 'receipt',
    overridable: true,
    description: 'The receipt of a payment, as a PDF',
    version: v(
      { type: 'object', required: ['merchant_name', 'amount', 'currency', 'payment_id'], properties: { merchant_name: str, amount: str, currency: str, payment_id: str, customer_email: str, paid_at: str } },
      {
        en: {
          title: 'Receipt from {{ merchant_name }}',
          text: 'Amount paid: {{ amount }} {{ currency | upcase }}\nPayment: {{ payment_id }}\n{% if paid_at %}Paid on {{ paid_at }}\n{% endif %}{% if customer_email %}Sent to {{ customer_email }}{% endif %}',
        },
        fr: {
          title: 'Reçu de {{ merchant_name }}',
          text: 'Montant payé : {{ amount }} {{ currency | upcase }}\nPaiement : {{ payment_id }}\n{% if paid_at %}Payé le {{ paid_at }}\n{% endif %}{% if customer_email %}Envoyé à {{ customer_email }}{% endif %}',
        },
      },
      { merchant_name: 'Boutique Awa', amount: '10 000', currency: 'xof', payment_id: 'pi_123', customer_email: 'client@example.com', paid_at: '2026-01-01' },
    ),
  },
  {
    purpose: 'invoice',
    kind: 'invoice',
    overridable: true,
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
        en: {
          title: 'Invoice {{ invoice_id }} from {{ merchant_name }}',
          text: '{% for line in lines %}{{ line.description }}: {{ line.amount }}\n{% endfor %}Amount due: {{ amount_due }} {{ currency | upcase }}{% if due_date %}\nDue on {{ due_date }}{% endif %}',
        },
        fr: {
          title: 'Facture {{ invoice_id }} de {{ merchant_name }}',
          text: '{% for line in lines %}{{ line.description }} : {{ line.amount }}\n{% endfor %}Montant dû : {{ amount_due }} {{ currency | upcase }}{% if due_date %}\nÀ payer le {{ due_date }}{% endif %}',
        },
      },
      { merchant_name: 'Boutique Awa', invoice_id: 'in_123', amount_due: '25 000', currency: 'xof', due_date: '2026-02-01', lines: [{ description: 'Tissu wax', amount: '25 000' }] },
    ),
  },
];

export const builtInTemplate = (purpose: string): BuiltInTemplate | undefined => BUILT_IN_TEMPLATES.find((t) => t.purpose === purpose);
