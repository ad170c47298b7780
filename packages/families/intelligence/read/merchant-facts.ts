import type { Knex } from 'knex';
import type { MerchantFacts } from '../suggestions.js';
import { hasPayoutMethod } from '#packages/families/payouts/read/index.js';
import { hasWebhookEndpoint } from '#packages/families/webhooks/read/index.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * What context suggestions need to know about a merchant, read from the read models that hold it
 * (payments, payouts, endpoints, links, recipients, customers, assets): existence checks on
 * indexed columns, and two small sums.
 */
export async function merchantFacts(knex: Knex, owner: Owner, now: Date): Promise<MerchantFacts> {
  const mine = (table: string) => knex(table).where({ merchant_id: owner.merchantId, environment: owner.environment });
  const exists = async (q: Knex.QueryBuilder) => (await q.first(knex.raw('1 AS present'))) !== undefined;
  const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  const [payout, sandboxPayment, webhook, logo, link, recipient, customer, failed, delayed] = await Promise.all([
    hasPayoutMethod(knex, owner.merchantId),
    exists(knex('read.payment_intents').where({ merchant_id: owner.merchantId, environment: 'sandbox', status: 'succeeded' })),
    hasWebhookEndpoint(knex, owner.merchantId),
    exists(mine('read.assets').where({ purpose: 'logo', status: 'ready' })),
    exists(mine('read.payment_links')),
    exists(mine('read.payout_recipients')),
    exists(mine('read.customers')),
    mine('read.intel_daily').where('day', '>=', yesterday).sum({ n: 'failed' }).first<{ n: string | null }>(),
    mine('read.payouts').whereIn('status', ['pending', 'in_transit']).whereRaw("object->>'delay_state' = 'delayed'").count({ n: '*' }).first<{ n: string }>(),
  ]);
  return {
    hasPayoutDestination: payout,
    hasSucceededSandboxPayment: sandboxPayment,
    hasWebhookEndpoint: webhook,
    hasLogo: logo,
    hasPaymentLink: link,
    hasRecipients: recipient,
    hasCustomers: customer,
    recentFailedPayments: Number(failed?.n ?? 0),
    delayedPayouts: Number(delayed?.n ?? 0),
  };
}
