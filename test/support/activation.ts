/**
 * The activation application as a merchant submits it and operators decide it (docs/merchants.md,
 * "Going live"): an identity document uploaded through the assets API, a complete application body,
 * and the operators' use cases called with an operator actor; rails whose live side records collections.
 */
import { createHash } from 'node:crypto';
import type { CollectRequest, Rails } from '#packages/connectors/port.js';
import type { Environment } from '#packages/core/owner.js';
import { liveOperator } from './payouts.js';
import type { TestService } from './system.js';

/** A real one-page PDF's first bytes: enough for the magic number the assets check. */
export const ID_PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** The operator every decision of the suites is made by. */
export const REVIEWER = { actor: 'operator:op_reviewer' };

/** Uploads and completes a file of `purpose` (an identity document by default) with the merchant's key; returns its asset id. */
export async function uploadDocument(svc: TestService, key: string, options: { purpose?: string; complete?: boolean } = {}): Promise<string> {
  const sha256 = createHash('sha256').update(ID_PDF).digest('hex');
  const purpose = options.purpose ?? 'onboarding_document';
  const created = await svc.request('POST', '/api/v1/assets', { key, body: { name: 'passport.pdf', purpose, contentType: 'application/pdf', size: ID_PDF.length, sha256 } });
  if (created.status !== 201) throw new Error(`document declaration refused: ${created.text}`);
  const id = created.body.id as string;
  const uploaded = await svc.request('PUT', `/api/v1/assets/${id}/content`, { key, rawBody: ID_PDF, headers: { 'content-type': 'application/octet-stream' } });
  if (uploaded.status !== 200) throw new Error(`document upload refused: ${uploaded.text}`);
  if (options.complete === false) return id;
  const completed = await svc.request('POST', `/api/v1/assets/${id}/complete`, { key });
  if (completed.status !== 200) throw new Error(`document completion refused: ${completed.text}`);
  return id;
}

/** A complete application of a Senegalese sole trader settling to an Orange Money wallet. */
export function applicationBody(identityDocument: string): Record<string, unknown> {
  return {
    business: {
      legal_name: 'Awa Diop',
      trading_name: 'Boutique Awa',
      type: 'individual',
      registration_number: 'SN-DKR-2024-A-1234',
      country: 'sn',
      address: { line1: '12 rue Carnot', city: 'Dakar' },
      product_description: 'Wax fabrics and tailoring, sold in the shop and on WhatsApp',
    },
    representative: { name: 'Awa Diop', date_of_birth: '1990-04-12', identity_document: identityDocument },
    settlement_destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
    expected_monthly_volume: { amount: 2_500_000, currency: 'xof' },
  };
}

/** Submits a complete application for the merchant with its key; throws when refused. */
export async function submitApplication(svc: TestService, key: string): Promise<void> {
  const res = await svc.request('POST', '/api/v1/merchant/activation', { key, body: applicationBody(await uploadDocument(svc, key)) });
  if (res.status !== 200) throw new Error(`application refused: ${res.text}`);
}

/** Applies and has the application approved: the merchant's live is open, as it is in production. */
export async function approvedMerchant(svc: TestService, key: string, merchantId: string): Promise<void> {
  await submitApplication(svc, key);
  await svc.system.activationApplications.approve(merchantId, REVIEWER);
}

/**
 * Rails for activation suites: live payouts as the operator answers them (liveOperator), live
 * collections taken and recorded in `collects` (left processing): what a live confirm refused
 * before approval and accepted after it needs.
 */
export function liveRailsRecording(collects: CollectRequest[]): (environment: Environment, base: Rails) => Rails {
  const payingOut = liveOperator();
  return (environment, base) => {
    const rails = payingOut(environment, base);
    if (environment !== 'live') return rails;
    rails.assertCanCollect = () => undefined;
    rails.collect = async (request) => {
      collects.push(request);
      return { status: 'processing' };
    };
    return rails;
  };
}
