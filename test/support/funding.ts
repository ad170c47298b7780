/**
 * Helpers of the funding suites: campaigns and contributions made through the API, and the
 * campaign's ledger account as the balance stream holds it (not the read model).
 */
import { fold } from '#packages/core/decider.js';
import { balanceOf } from '#packages/ledger/decider.js';
import { familiesLedger } from './ledger.js';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import type { TestResponse, TestService } from './system.js';

export const DAY = 86_400_000;

/** Creates a campaign (XOF 100,000 in Senegal, keep what you raise, unless told otherwise) and returns the object. */
export async function createCampaign(svc: TestService, key: string, body: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/v1/funding/campaigns', {
    key,
    body: { title: 'School roof', description: 'A new roof for the school of Ndiaganiao', targetAmountMinor: 100_000, currency: 'XOF', country: 'SN', ...body },
  });
  if (res.status !== 200) throw new Error(`campaign create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A published campaign. */
export async function activeCampaign(svc: TestService, key: string, body: Record<string, unknown> = {}) {
  const campaign = await createCampaign(svc, key, body);
  const res = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/publish`, { key });
  if (res.status !== 200) throw new Error(`publish failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A mobile money payment method (camelCase, as the funding family takes it) with a sandbox Orange number. */
export const orangeMoney = (lastTwo = '67') => ({ type: 'mobile_money', mobileMoney: { country: 'SN', operator: 'orange_money', msisdn: `+2217712345${lastTwo}` } });

export function contribute(svc: TestService, key: string, campaignId: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<TestResponse> {
  return svc.request('POST', '/api/v1/funding/contributions', { key, headers, body: { campaignId, amountMinor: 5_000, currency: 'XOF', paymentMethod: orangeMoney(), ...body } });
}

export async function getCampaign(svc: TestService, key: string, id: string) {
  const res = await svc.request('GET', `/api/v1/funding/campaigns/${id}`, { key });
  if (res.status !== 200) throw new Error(`campaign get failed: ${res.status} ${res.text}`);
  return res.body;
}

/** The sandbox operator answers (the clock moves past its delay), then the bus and the jobs run until idle. */
export async function settle(svc: TestService, ms: number): Promise<void> {
  svc.clock.advance(ms);
  await svc.system.drain();
}

/** The campaign's account on the merchant's balance stream, folded from the log. */
export async function campaignAccountBalance(svc: TestService, merchantId: string, campaignId: string, currency = 'xof'): Promise<number> {
  const recorded = await svc.system.store.readStream(balanceStream(merchantId, 'sandbox', currency));
  const state = fold(
    familiesLedger.decider,
    recorded.map((e) => ({ type: e.type, data: e.data }) as LedgerEvent),
  );
  return balanceOf(state, `campaign:${campaignId}`);
}
