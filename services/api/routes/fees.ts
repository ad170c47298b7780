import { MAX_AMOUNT, quoteFee } from '#packages/catalog/index.js';
import type { Direction, PaymentMethodType } from '#packages/catalog/index.js';
import { route, type RouteGroup } from '#packages/http/routes.js';

interface QuoteBody {
  amount: number;
  currency: string;
  direction: Direction;
  method: PaymentMethodType;
  country: string;
  operator?: string | null;
}

/** Fee quotes (docs/fees.md): the same computation the ledger and the payout balance check use. */
export function feesRoutes(): RouteGroup {
  return {
    name: 'fees',
    description: "What a payment or payout costs before it is made: Sika's fee and what the merchant receives or pays in total.",
    routes: [
      route<QuoteBody>({
        method: 'post',
        path: '/api/v1/fees/quote',
        summary: 'The fee of a payin or payout, and what the merchant receives or pays in total',
        description: [
          "Quotes Sika's fee for a payment (`payin`) or a payout of `amount` by `method` in `country`, with what the merchant receives (`net`) or what leaves its balance (`total`). The fee comes from the one function the ledger and the payout balance check use, so a quote is exactly what will be charged for the same input while the schedule stays the same (docs/fees.md).",
          '',
          "Use it to show a payer or a recipient the cost before creating the payment or payout. It creates nothing, and the checks are the catalog's: the currency must be the country's, a mobile money `operator` must serve the direction and take the amount.",
        ].join('\n'),
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-008', 'IKW-VAL-009'],
        auth: { scope: 'fees.read' },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['amount', 'currency', 'direction', 'method', 'country'],
          properties: {
            amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units of the currency (XOF has none: 5000 is 5,000 francs)' },
            currency: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, any case' },
            direction: { type: 'string', enum: ['payin', 'payout'], description: 'Whether money comes in or goes out', 'x-enumDescriptions': { payin: 'A payment collected from a payer', payout: 'A payout sent from the balance' } },
            method: {
              type: 'string',
              enum: ['mobile_money', 'card', 'bank'],
              description: 'How the money moves; payouts go to `mobile_money` or `bank`',
              'x-enumDescriptions': { mobile_money: 'A mobile money wallet (give `operator`)', card: 'A card (payins only)', bank: 'A bank account' },
            },
            country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, any case' },
            operator: {
              anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'null' }],
              description: 'Required for mobile_money (e.g. orange_money); not accepted for card or bank',
            },
          },
        },
        response: {
          type: 'object',
          required: ['object', 'amount', 'currency', 'direction', 'method', 'country', 'operator', 'fee', 'net', 'total', 'livemode'],
          properties: {
            object: { const: 'fee_quote', description: 'The kind of object: always `fee_quote`' },
            amount: { type: 'integer', description: 'The amount quoted, in minor units, as given' },
            currency: { type: 'string', description: 'ISO 4217, lower case' },
            direction: { type: 'string', enum: ['payin', 'payout'], description: 'As given', 'x-enumDescriptions': { payin: 'A payment collected from a payer', payout: 'A payout sent from the balance' } },
            method: {
              type: 'string',
              enum: ['mobile_money', 'card', 'bank'],
              description: 'As given',
              'x-enumDescriptions': { mobile_money: 'A mobile money wallet (give `operator`)', card: 'A card (payins only)', bank: 'A bank account' },
            },
            country: { type: 'string', description: 'ISO 3166-1 alpha-2, upper case' },
            operator: { type: ['string', 'null'], description: 'The mobile money operator quoted; null for card and bank' },
            fee: { type: 'integer', description: "Sika's fee, in minor units of the currency" },
            net: { type: 'integer', description: 'Payin: credited to the merchant (amount − fee). Payout: received by the recipient (amount)' },
            total: { type: 'integer', description: "Payout: debited from the merchant's balance (amount + fee). Payin: the amount" },
            livemode: { type: 'boolean', description: '`true` when asked with a live credential, `false` in sandbox (the schedule is the same)' },
          },
        },
        handler: async (ctx) => {
          const { operator, ...rest } = ctx.body;
          const quote = quoteFee(operator === null || operator === undefined ? rest : { ...rest, operator });
          return {
            object: 'fee_quote',
            amount: quote.amount,
            currency: quote.currency.toLowerCase(),
            direction: quote.direction,
            method: quote.method,
            country: quote.country,
            operator: quote.operator,
            fee: quote.fee,
            net: quote.net,
            total: quote.total,
            livemode: ctx.principal.livemode,
          };
        },
      }),
    ],
  };
}
