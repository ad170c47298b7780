import type { Knex } from 'knex';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findMerchant, liveActivationOf } from '../read/merchants.js';
import { organizationOfMerchant } from '#packages/families/accounts/read/index.js';
import { hasSucceededPayment } from '#packages/families/payments/read/index.js';
import { hasPayoutMethod } from '#packages/families/payouts/read/index.js';
import { findUser } from '#packages/families/accounts/read/index.js';
import { hasWebhookEndpoint } from '#packages/families/webhooks/read/index.js';
import { userOf } from '#packages/families/accounts/http/index.js';
import { signedIn } from '#packages/http/route-kit.js';

/** The go-live checklist, in the order a merchant works through it (docs/merchants.md, "Onboarding"). */
const STEPS = [
  { key: 'business_profile', title: 'Business profile: organization name, country and type, and a notification e-mail' },
  { key: 'email_verified', title: 'Verify your e-mail address' },
  { key: 'phone_verified', title: 'Verify your phone number' },
  { key: 'payout_destination', title: 'Save a payout destination' },
  { key: 'first_sandbox_payment', title: 'Take a first payment in sandbox' },
  { key: 'webhook_endpoint', title: 'Register a webhook endpoint' },
  { key: 'live_activation', title: 'Go live: submit the activation application (POST /api/v1/merchant/activation); complete once the platform approves it' },
] as const;

type StepKey = (typeof STEPS)[number]['key'];

/**
 * /api/v1/onboarding: the current merchant's go-live checklist, each step's state read from the
 * read models the events built (nothing is stored for the checklist itself).
 */
export function onboardingRoutes(knex: Knex): RouteGroup {
  return {
    name: 'onboarding',
    description: "The merchant's go-live checklist as the dashboard's home shows it.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/onboarding/steps',
        summary: "The current merchant's go-live checklist: each step with its state (complete or incomplete)",
        description:
          "The steps between a new account and live payments, in the order a merchant works through them, each read from what the merchant has really done (nothing is ticked by hand): the business profile, a verified e-mail address and phone number, a payout destination, a first sandbox payment, a webhook endpoint, and live activation (the activation application, approved). The dashboard's home draws it; `completed` of `total` is its progress bar.",
        auth: signedIn,
        response: {
          type: 'object',
          properties: {
            object: { const: 'list', description: 'The kind of object: always `list`' },
            merchantId: { type: 'string', description: 'The merchant the checklist is about: the one the session acts for' },
            completed: { type: 'integer', description: 'How many steps are complete' },
            total: { type: 'integer', description: 'How many steps there are' },
            data: {
              type: 'array',
              description: 'The steps, in the order to take them',
              items: {
                type: 'object',
                properties: {
                  key: { type: 'string', description: 'The step, stable: branch on it', enum: STEPS.map((s) => s.key), 'x-enumDescriptions': Object.fromEntries(STEPS.map((s) => [s.key, s.title])) },
                  title: { type: 'string', description: 'The step in words, for a person' },
                  state: { enum: ['complete', 'incomplete'], description: 'Whether it is done', 'x-enumDescriptions': { complete: 'Done', incomplete: 'Still to do' } },
                },
              },
            },
          },
        },
        handler: async (ctx) => {
          const { userId, merchantId } = userOf(ctx);
          const [merchant, organization, user, payout, payment, webhook, live] = await Promise.all([
            findMerchant(knex, merchantId),
            organizationOfMerchant(knex, merchantId),
            findUser(knex, userId),
            hasPayoutMethod(knex, merchantId),
            hasSucceededPayment(knex, merchantId, 'sandbox'),
            hasWebhookEndpoint(knex, merchantId),
            liveActivationOf(knex, merchantId),
          ]);
          const done: Record<StepKey, boolean> = {
            business_profile: organization !== undefined && Boolean(merchant?.email),
            email_verified: user?.email_verified_at != null,
            phone_verified: user?.phone_verified_at != null,
            payout_destination: payout,
            first_sandbox_payment: payment,
            webhook_endpoint: webhook,
            // Open once the platform approved the activation application (docs/merchants.md, "Going live").
            live_activation: live.status === 'active',
          };
          const data = STEPS.map((s) => ({ key: s.key, title: s.title, state: done[s.key] ? 'complete' : 'incomplete' }));
          return { object: 'list', merchantId, completed: data.filter((s) => s.state === 'complete').length, total: data.length, data };
        },
      }),
    ],
  };
}
