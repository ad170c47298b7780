import { MAX_AMOUNT, quoteFee } from '../../../packages/catalog/index.js';
import type { Direction, PaymentMethodType } from '../../../packages/catalog/index.js';
import { route, type Family } from '../../../packages/http/routes.js';

interface QuoteBody {
  amount: number;
  currency: string;
  direction: Direction;
  method: PaymentMethodType;
  country: string;
  operator?: string | null;
}

/** Fee quotes (docs/fees.md): the same computation the ledger and the payout balance check use. */
export function feesFamily(): Family {
  return {
    name: 'fees',
    description: 'What a payment or payout costs before it is made: Sika\'s fee and what the merchant receives or pays in total.',
    routes: [
      route<QuoteBody>({
        method: 'post',
        path: '/api/v1/fees/quote',
        summary: 'The fee of a payin or payout, and what the merchant receives or pays in total',
        auth: { scope: 'fees.read' },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['amount', 'currency', 'direction', 'method', 'country'],
          properties: {
            amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: "Minor units of the currency (XOF has none: 5000 is 5,000 francs)" },
            currency: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, any case' },
            direction: { type: 'string', enum: ['payin', 'payout'] },
            method: { type: 'string', enum: ['mobile_money', 'card', 'bank'] },
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
            object: { const: 'fee_quote' },
            amount: { type: 'integer' },
            currency: { type: 'string', description: 'ISO 4217, lower case' },
            direction: { type: 'string', enum: ['payin', 'payout'] },
            method: { type: 'string', enum: ['mobile_money', 'card', 'bank'] },
            country: { type: 'string', description: 'ISO 3166-1 alpha-2, upper case' },
            operator: { type: ['string', 'null'] },
            fee: { type: 'integer' },
            net: { type: 'integer', description: 'Payin: credited to the merchant (amount − fee). Payout: received by the recipient (amount)' },
            total: { type: 'integer', description: "Payout: debited from the merchant's balance (amount + fee). Payin: the amount" },
            livemode: { type: 'boolean' },
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
