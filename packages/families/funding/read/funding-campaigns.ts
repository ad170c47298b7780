import type { Knex } from 'knex';
import type { CampaignObject, CampaignPayout, CampaignUpdate, ContributionObject, FundingCampaignEvent } from '../events.js';
import type { LedgerEvent } from '#packages/families/ledger/index.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotTableSql, storeSnapshot } from '#packages/read-models/snapshot.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/**
 * The funding read models: campaigns and contributions as their latest events left them, the
 * campaigns' updates and payouts, and the entries of each campaign's ledger account.
 */
export const fundingCampaignsProjection: Projection = {
  name: 'funding_campaigns',
  tables: ['read.funding_campaigns', 'read.funding_contributions', 'read.funding_campaign_updates', 'read.funding_campaign_payouts', 'read.funding_ledger_entries'],
  migrations: [
    {
      name: 'funding_campaigns/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.funding_campaigns', ['slug text NOT NULL UNIQUE'])};
          CREATE INDEX funding_campaigns_list ON read.funding_campaigns (merchant_id, environment, seq);
          ${snapshotTableSql('read.funding_contributions', ['campaign_id text NOT NULL'])};
          CREATE INDEX funding_contributions_list ON read.funding_contributions (merchant_id, environment, seq);
          CREATE INDEX funding_contributions_campaign ON read.funding_contributions (campaign_id, seq);
          CREATE TABLE read.funding_campaign_updates (
            id text PRIMARY KEY,
            seq text NOT NULL,
            campaign_id text NOT NULL,
            merchant_id text NOT NULL,
            environment text NOT NULL,
            object json NOT NULL
          );
          CREATE INDEX funding_campaign_updates_campaign ON read.funding_campaign_updates (campaign_id, seq);
          CREATE TABLE read.funding_campaign_payouts (
            id text PRIMARY KEY,
            seq text NOT NULL,
            campaign_id text NOT NULL,
            merchant_id text NOT NULL,
            environment text NOT NULL,
            object json NOT NULL
          );
          CREATE INDEX funding_campaign_payouts_campaign ON read.funding_campaign_payouts (campaign_id, seq);
          CREATE TABLE read.funding_ledger_entries (
            entry_id text PRIMARY KEY,
            seq text NOT NULL,
            campaign_id text NOT NULL,
            merchant_id text NOT NULL,
            environment text NOT NULL,
            kind text NOT NULL,
            source text NOT NULL,
            amount bigint NOT NULL,
            posted_at timestamptz NOT NULL
          );
          CREATE INDEX funding_ledger_entries_campaign ON read.funding_ledger_entries (campaign_id, seq)`),
    },
  ],
  handles: [
    'funding_campaign.created',
    'funding_campaign.updated',
    'funding_campaign.published',
    'funding_campaign.target_reached',
    'funding_campaign.closed',
    'funding_campaign.canceled',
    'funding_campaign.failed',
    'funding_campaign.contribution_created',
    'funding_campaign.contribution_received',
    'funding_campaign.contribution_failed',
    'funding_campaign.contribution_refunded',
    'funding_campaign.contribution_refund_settled',
    'funding_campaign.update_posted',
    'funding_campaign.update_edited',
    'funding_campaign.update_deleted',
    'funding_campaign.payout_requested',
    'funding_campaign.payout_settled',
    'ledger.entry_posted',
  ],
  async apply(trx, event) {
    if (event.type === 'ledger.entry_posted') {
      const e = (event as unknown as LedgerEvent).data;
      // Any entry that moves a campaign's account, also one its family does not post: the rail's
      // reversal of a give-back it failed puts the money back on the account it left.
      const campaign = e.campaign ?? e.lines.find((l) => l.account.startsWith('campaign:'))?.account.slice('campaign:'.length);
      if (!campaign) return;
      const account = `campaign:${campaign}`;
      const amount = e.lines.filter((l) => l.account === account).reduce((sum, l) => sum + l.amount, 0);
      await trx('read.funding_ledger_entries')
        .insert({ entry_id: e.entryId, seq: event.position, campaign_id: campaign, merchant_id: e.merchantId, environment: e.environment, kind: e.kind, source: e.source, amount, posted_at: e.postedAt })
        .onConflict('entry_id')
        .ignore();
      return;
    }
    const e = event as unknown as FundingCampaignEvent;
    const owner = { merchant_id: event.metadata.merchant_id!, environment: event.metadata.environment! };
    switch (e.type) {
      case 'funding_campaign.contribution_created':
      case 'funding_campaign.contribution_received':
      case 'funding_campaign.contribution_failed':
      case 'funding_campaign.contribution_refunded':
      case 'funding_campaign.contribution_refund_settled': {
        const object = e.data.object;
        const created = e.type === 'funding_campaign.contribution_created' ? { ...owner, campaign_id: object.campaignId } : null;
        await storeSnapshot(trx, 'read.funding_contributions', event, object, created);
        await storeSnapshot(trx, 'read.funding_campaigns', event, e.data.campaign, null);
        return;
      }
      default:
        break;
    }
    const object = e.data.object;
    const created = e.type === 'funding_campaign.created' ? { ...owner, slug: e.data.slug } : null;
    await storeSnapshot(trx, 'read.funding_campaigns', event, object, created);
    switch (e.type) {
      case 'funding_campaign.update_posted':
        await trx('read.funding_campaign_updates')
          .insert({ id: e.data.update.id, seq: event.position, campaign_id: object.id, ...owner, object: JSON.stringify(e.data.update) })
          .onConflict('id')
          .ignore();
        return;
      case 'funding_campaign.update_edited': {
        const row = await trx('read.funding_campaign_updates').where({ id: e.data.updateId }).first<{ object: CampaignUpdate } | undefined>('object');
        if (!row) return;
        const edited = { ...row.object, ...(e.data.title !== undefined ? { title: e.data.title } : {}), ...(e.data.body !== undefined ? { body: e.data.body } : {}), editedAt: e.data.at };
        await trx('read.funding_campaign_updates')
          .where({ id: e.data.updateId })
          .update({ object: JSON.stringify(edited) });
        return;
      }
      case 'funding_campaign.update_deleted':
        await trx('read.funding_campaign_updates').where({ id: e.data.updateId }).delete();
        return;
      case 'funding_campaign.payout_requested':
        await trx('read.funding_campaign_payouts')
          .insert({ id: e.data.payout.id, seq: event.position, campaign_id: object.id, ...owner, object: JSON.stringify(e.data.payout) })
          .onConflict('id')
          .ignore();
        return;
      case 'funding_campaign.payout_settled': {
        const row = await trx('read.funding_campaign_payouts').where({ id: e.data.campaignPayoutId }).first<{ object: CampaignPayout } | undefined>('object');
        if (!row) return;
        await trx('read.funding_campaign_payouts')
          .where({ id: e.data.campaignPayoutId })
          .update({ object: JSON.stringify({ ...row.object, status: e.data.status, failureReason: e.data.failureReason }) });
        return;
      }
      default:
        return;
    }
  },
};

export function findCampaign(knex: Knex, owner: Owner, id: string): Promise<CampaignObject | undefined> {
  return findOwnedObject<CampaignObject>(knex, 'read.funding_campaigns', owner, id, (o) => o);
}

export function listCampaigns(knex: Knex, owner: Owner, query: CursorQuery & { status?: string }): Promise<CursorList<CampaignObject>> {
  return cursorPageOfObjects<CampaignObject>(ownedRows(knex, 'read.funding_campaigns', owner, { status: query.status }), query, '/api/v1/funding/campaigns', (o) => o);
}

/** The campaign of a public page, with its owner. */
export async function findCampaignBySlug(knex: Knex, slug: string): Promise<{ owner: Owner; campaign: CampaignObject } | undefined> {
  const row = await knex('read.funding_campaigns').where({ slug }).first<{ merchant_id: string; environment: Environment; object: CampaignObject } | undefined>('merchant_id', 'environment', 'object');
  return row && { owner: { merchantId: row.merchant_id, environment: row.environment }, campaign: row.object };
}

export function findContribution(knex: Knex, owner: Owner, id: string): Promise<ContributionObject | undefined> {
  return findOwnedObject<ContributionObject>(knex, 'read.funding_contributions', owner, id, (o) => o);
}

/** A contribution by its id alone (the public page's status of a contribution just made: its id is unguessable). */
export async function findContributionById(knex: Knex, id: string): Promise<ContributionObject | undefined> {
  const row = await knex('read.funding_contributions').where({ id }).first<{ object: ContributionObject } | undefined>('object');
  return row?.object;
}

export async function campaignOfContribution(knex: Knex, owner: Owner, id: string): Promise<string | undefined> {
  const row = await ownedRows(knex, 'read.funding_contributions', owner).where({ id }).first<{ campaign_id: string } | undefined>('campaign_id');
  return row?.campaign_id;
}

export function listContributions(knex: Knex, owner: Owner, query: CursorQuery & { campaignId?: string; status?: string }, url: string): Promise<CursorList<ContributionObject>> {
  return cursorPageOfObjects<ContributionObject>(ownedRows(knex, 'read.funding_contributions', owner, { campaign_id: query.campaignId, status: query.status }), query, url, (o) => o);
}

/** Every contribution of a campaign, oldest first (the CSV export). */
export async function allContributions(knex: Knex, owner: Owner, campaignId: string): Promise<ContributionObject[]> {
  const rows = await ownedRows(knex, 'read.funding_contributions', owner, { campaign_id: campaignId }).orderBy('seq', 'asc').select<{ object: ContributionObject }[]>('object');
  return rows.map((r) => r.object);
}

/** The succeeded contributions shown on the public page, newest first. */
export async function recentContributions(knex: Knex, campaignId: string, limit: number): Promise<ContributionObject[]> {
  const rows = await knex('read.funding_contributions').where({ campaign_id: campaignId, status: 'succeeded' }).orderBy('seq', 'desc').limit(limit).select<{ object: ContributionObject }[]>('object');
  return rows.map((r) => r.object);
}

export function listUpdates(knex: Knex, owner: Owner, campaignId: string, query: CursorQuery, url: string): Promise<CursorList<CampaignUpdate>> {
  return cursorPage<{ seq: string; object: CampaignUpdate }, CampaignUpdate>(ownedRows(knex, 'read.funding_campaign_updates', owner, { campaign_id: campaignId }).select('seq', 'object'), query, url, 'id', (r) => r.object);
}

export async function findUpdate(knex: Knex, owner: Owner, campaignId: string, id: string): Promise<CampaignUpdate | undefined> {
  const row = await ownedRows(knex, 'read.funding_campaign_updates', owner, { campaign_id: campaignId }).where({ id }).first<{ object: CampaignUpdate } | undefined>('object');
  return row?.object;
}

/** A campaign's updates for its public page, newest first. */
export async function publicUpdates(knex: Knex, campaignId: string, limit: number): Promise<CampaignUpdate[]> {
  const rows = await knex('read.funding_campaign_updates').where({ campaign_id: campaignId }).orderBy('seq', 'desc').limit(limit).select<{ object: CampaignUpdate }[]>('object');
  return rows.map((r) => r.object);
}

export function listCampaignPayouts(knex: Knex, owner: Owner, campaignId: string, query: CursorQuery, url: string): Promise<CursorList<CampaignPayout>> {
  return cursorPage<{ seq: string; object: CampaignPayout }, CampaignPayout>(ownedRows(knex, 'read.funding_campaign_payouts', owner, { campaign_id: campaignId }).select('seq', 'object'), query, url, 'id', (r) => r.object);
}

export interface CampaignLedger {
  object: 'funding.campaign_ledger';
  campaignId: string;
  account: string;
  currency: string;
  balanceMinor: number;
  entries: { id: string; kind: string; source: string; amountMinor: number; postedAt: string }[];
}

/** The campaign's ledger account: its balance and every entry that moved it, oldest first. */
export async function campaignLedger(knex: Knex, owner: Owner, campaign: CampaignObject): Promise<CampaignLedger> {
  const rows = await ownedRows(knex, 'read.funding_ledger_entries', owner, { campaign_id: campaign.id })
    .orderBy('seq', 'asc')
    .select<{ entry_id: string; kind: string; source: string; amount: string; posted_at: Date }[]>('entry_id', 'kind', 'source', 'amount', 'posted_at');
  const entries = rows.map((r) => ({ id: r.entry_id, kind: r.kind, source: r.source, amountMinor: Number(r.amount), postedAt: r.posted_at.toISOString() }));
  return { object: 'funding.campaign_ledger', campaignId: campaign.id, account: `campaign:${campaign.id}`, currency: campaign.currency, balanceMinor: entries.reduce((s, e) => s + e.amountMinor, 0), entries };
}

/** Progress over time: succeeded contributions per day (UTC), with the running total. */
export async function contributionsByDay(knex: Knex, owner: Owner, campaignId: string): Promise<{ date: string; amountMinor: number; count: number; cumulativeAmountMinor: number }[]> {
  const rows = await ownedRows(knex, 'read.funding_contributions', owner, { campaign_id: campaignId, status: 'succeeded' })
    .groupByRaw(`substr(object->>'succeededAt', 1, 10)`)
    .orderByRaw(`substr(object->>'succeededAt', 1, 10)`)
    .select<{ date: string; amount: string; count: string }[]>(knex.raw(`substr(object->>'succeededAt', 1, 10) AS date`), knex.raw(`sum((object->>'amountMinor')::bigint) AS amount`), knex.raw('count(*) AS count'));
  let running = 0;
  return rows.map((r) => {
    running += Number(r.amount);
    return { date: r.date, amountMinor: Number(r.amount), count: Number(r.count), cumulativeAmountMinor: running };
  });
}

/** The public view of a campaign and its latest updates and contributions (anonymous ones unnamed). */
export async function publicCampaignView(knex: Knex, campaign: CampaignObject) {
  const [updates, recent] = await Promise.all([publicUpdates(knex, campaign.id, 20), recentContributions(knex, campaign.id, 10)]);
  return {
    object: 'funding.public_campaign' as const,
    slug: campaign.slug,
    title: campaign.title,
    description: campaign.description,
    currency: campaign.currency,
    country: campaign.country,
    status: campaign.status,
    fundingModel: campaign.fundingModel,
    targetAmountMinor: campaign.targetAmountMinor,
    raisedAmountMinor: campaign.raisedAmountMinor,
    contributorCount: campaign.contributorCount,
    percentFunded: campaign.percentFunded,
    deadline: campaign.deadline,
    livemode: campaign.livemode,
    updates,
    recentContributions: recent.map((c) => ({ name: c.anonymous ? null : c.contributorName, amountMinor: c.amountMinor, message: c.message, created: c.created })),
  };
}
