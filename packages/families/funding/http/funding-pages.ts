import type { Knex } from 'knex';
import type { Owner } from '#packages/core/owner.js';
import { getCurrency } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import { isRefused } from '#packages/core/refusal.js';
import type { FundingContributions } from '../contributions.js';
import type { CampaignObject } from '../events.js';
import { Reply, type HandlerContext } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findCampaignBySlug, findContributionById, publicCampaignView } from '../read/funding-campaigns.js';
import { campaignPage, fundingMessagePage, type CampaignPageInput } from './page.js';
import { refusalText } from '#packages/families/checkout/http/index.js';
import { languageOf, type Language } from '#packages/http/pages/layout.js';
import type { PageMerchantOf } from '#packages/families/assets/http/index.js';
import { campaignSlugParams } from './schemas.js';
import { confirmationFields } from '#packages/families/payments/http/index.js';
import { wantsHtml } from '#packages/http/route-kit.js';

interface ContributeForm {
  Amount?: string;
  Name?: string;
  Email?: string;
  Anonymous?: string;
  Message?: string;
  Operator?: string;
  PhoneNumber?: string;
}

const contributeForm = {
  type: 'object',
  additionalProperties: false,
  properties: {
    Amount: { type: 'string', maxLength: 32, description: 'The amount as a person types it in the major unit (`5000`, `5 000`, `12,50`): required' },
    Name: { type: 'string', maxLength: 256, description: "The contributor's name" },
    Email: { type: 'string', maxLength: 256, description: "The contributor's e-mail address, for the organizer's receipts" },
    Anonymous: {
      enum: ['true', 'on', 'false'],
      description: "Whether the page hides the contributor's name",
      'x-enumDescriptions': { true: 'Hide the name', on: 'Hide the name (a checked box)', false: 'Show the name' },
    },
    Message: { type: 'string', maxLength: 1000, description: 'A message shown with the contribution' },
    Operator: { type: 'string', maxLength: 64, description: "The mobile money operator of the campaign's country (`orange`, `mtn`…): required" },
    PhoneNumber: { type: 'string', maxLength: 32, description: 'The mobile money number the operator asks to approve the payment: required' },
  },
};

const pageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { contribution: { type: 'string', format: 'uuid', description: 'A contribution just made on this page: the page shows how it went (waiting, thanks, or the failure and the form again)' } },
};

/** An amount as a person types it ("5000", "5 000", "12,50") in minor units of the currency; null when it is not one. */
export function parseAmount(text: string, currency: string): number | null {
  const minor = getCurrency(currency)?.minorUnits ?? 2;
  const plain = text.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  const match = /^(\d{1,15})(?:\.(\d*))?$/.exec(plain);
  if (!match || (match[2] ?? '').length > minor) return null;
  const value = Number(match[1]) * 10 ** minor + Number((match[2] ?? '').padEnd(minor, '0') || '0');
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The hosted page of a funding campaign (`funding` pages, outside /api/v1/funding): GET shows
 * it, POST takes the contribution form and answers 303 to the page, which shows the outcome.
 * Refusals re-show the form with the reason to browsers, and are coded JSON to programs.
 */
export function fundingPagesRoutes(knex: Knex, funding: FundingContributions, pageMerchant: PageMerchantOf): RouteGroup {
  const visible = async (slug: string) => {
    const page = await findCampaignBySlug(knex, slug);
    return page && page.campaign.status !== 'draft' ? page : undefined;
  };

  const render = async (lang: Language, owner: Owner, campaign: CampaignObject, extra: Partial<CampaignPageInput> = {}, status = 200): Promise<Reply> => {
    const view = await publicCampaignView(knex, campaign);
    return campaignPage(lang, { campaign: { ...view, id: campaign.id }, updates: view.updates, recent: view.recentContributions, ...extra }, status, await pageMerchant(owner));
  };

  const notFound = (ctx: HandlerContext<unknown, unknown, { slug: string }>) => {
    if (wantsHtml(ctx.header('accept'))) return fundingMessagePage(languageOf(ctx.header('accept-language')), 'notFound', 404);
    throw new ApiError('IKW-RES-001', `No such funding campaign: '${ctx.params.slug}'`, 'slug');
  };

  return {
    name: 'funding-pages',
    description: "A funding campaign's public page and its contribution form.",
    routes: [
      route<unknown, { contribution?: string }, { slug: string }>({
        method: 'get',
        path: '/funding/:slug',
        summary: "A campaign's public page (HTML): progress, updates, latest contributions and the contribution form; `contribution` shows the outcome of one just made",
        auth: 'public',
        params: campaignSlugParams,
        description:
          "The page to share: title, description, raised amount with a progress bar, contributors, deadline, updates, the latest contributions and a mobile money form, in French or English (`Accept-Language`). A draft has no page (404); an ended campaign's page says so and has no form. A program asking JSON gets `404 IKW-RES-001` for a missing page.",
        refusals: [],
        query: pageQuery,
        answers: { html: true },
        handler: async (ctx) => {
          const page = await visible(ctx.params.slug);
          if (!page) return notFound(ctx);
          const mine = ctx.query.contribution ? await findContributionById(knex, ctx.query.contribution) : undefined;
          const contribution = mine && mine.campaignId === page.campaign.id ? { id: mine.id, status: mine.status } : null;
          return render(languageOf(ctx.header('accept-language')), page.owner, page.campaign, { contribution });
        },
      }),
      route<ContributeForm, unknown, { slug: string }>({
        method: 'post',
        path: '/funding/:slug/contribute',
        fields: confirmationFields,
        summary: "The campaign page's form (application/x-www-form-urlencoded or JSON): contribute by mobile money; answers 303 to the page, which shows the outcome",
        auth: 'public',
        params: campaignSlugParams,
        description:
          "The page's form: makes a contribution by mobile money and confirms it at once (the contributor approves on their phone), then answers `303` to the page with `?contribution=<id>`, which waits for the operator and shows the outcome. A refusal shows the page again to a browser, with the reason and what was typed, and is coded JSON to a program. Numbers are rate-limited per number and campaign (`429 IKW-LIM-001`). For a page of your own, `POST /api/v1/funding/public/campaigns/{slug}/contributions` answers JSON.",
        refusals: ['IKW-FND-002', 'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-007', 'IKW-VAL-008', 'IKW-CAP-001', 'IKW-CAP-002', 'IKW-PRV-001', 'IKW-PRV-002', 'IKW-PRV-005', 'IKW-ACT-006'],
        emits: ['payment_intent.created', 'payment_intent.processing', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'funding_campaign.contribution_received', 'funding_campaign.target_reached'],
        body: contributeForm,
        form: true,
        answers: { html: true, redirect: true },
        handler: async (ctx) => {
          const page = await visible(ctx.params.slug);
          if (!page) return notFound(ctx);
          const { owner, campaign } = page;
          const lang = languageOf(ctx.header('accept-language'));
          const b = ctx.body;
          const anonymous = b.Anonymous === 'true' || b.Anonymous === 'on';
          const form = { amount: b.Amount ?? '', name: b.Name ?? '', email: b.Email ?? '', anonymous, message: b.Message ?? '', operator: b.Operator ?? '', phone: b.PhoneNumber ?? '' };
          let contributionId: string;
          try {
            const amountMinor = parseAmount(form.amount, campaign.currency);
            if (amountMinor === null) throw new ApiError('IKW-VAL-001', 'Enter a valid amount', 'Amount');
            if (form.email !== '' && !EMAIL.test(form.email)) throw new ApiError('IKW-VAL-001', 'Not a valid e-mail address', 'Email');
            if (!form.operator) throw new ApiError('IKW-VAL-001', 'Choose an operator', 'Operator');
            if (!form.phone) throw new ApiError('IKW-VAL-001', 'Enter the mobile money number', 'PhoneNumber');
            const contribution = await funding.contribute(
              owner,
              {
                campaignId: campaign.id,
                amountMinor,
                currency: campaign.currency,
                contributorName: form.name || null,
                contributorEmail: form.email || null,
                anonymous,
                message: form.message || null,
                paymentMethod: { type: 'mobile_money', mobile_money: { country: campaign.country, operator: form.operator, msisdn: form.phone } },
              },
              ctx.actor,
              ctx.requestRef,
              'public_page',
            );
            contributionId = contribution.id;
          } catch (err) {
            if (!isRefused(err) || !wantsHtml(ctx.header('accept'))) throw err;
            const now = (await visible(ctx.params.slug))?.campaign ?? campaign;
            // A browser gets the page again, with the reason and what the contributor typed (and Retry-After, when limited).
            const refused = ctx.refusal(err);
            return (await render(lang, owner, now, { error: refusalText(lang, refused.code, refused.param), form }, refused.status)).withHeaders(refused.headers);
          }
          return Reply.redirect(`/funding/${campaign.slug}?contribution=${contributionId}`);
        },
      }),
    ],
  };
}
