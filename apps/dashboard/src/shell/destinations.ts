import { useQuery } from '@tanstack/react-query';
import type { Answer } from '../../../../clients/typescript/src/index.js';
import { sika, withSession } from './session.js';

/** A saved payout destination (a payout method) as GET /api/v1/merchant/settings/payouts lists it: the active ones. */
export type SavedDestination = Answer<'get', '/api/v1/merchant/settings/payouts'>['destinations'][number];

/** The environment's saved payout destinations that can be paid now, for the pages that pay out to one. */
export function useSavedDestinations(environment: string, onSignedOut: () => void): SavedDestination[] {
  const settings = useQuery({
    queryKey: ['payout-settings', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/settings/payouts'), onSignedOut),
  });
  return settings.data?.destinations ?? [];
}

/** How a saved destination is named in a list: its number or account. */
export const destinationLabel = (d: SavedDestination) => d.destination?.msisdn ?? d.destination?.account_number ?? d.id;

/** A payout's destination in one line (operator, number or bank and account, country), as the payout and batch pages show it, operator and country named by `names` (useCatalogNames). */
export function destinationText(
  d: { operator?: string | null; msisdn?: string | null; bank_code?: string | null; account_number?: string | null; country?: string | null } | null | undefined,
  names: { operator(id: string | null | undefined): string; country(code: string | null | undefined): string },
): string {
  return [names.operator(d?.operator), d?.msisdn, d?.bank_code, d?.account_number, names.country(d?.country)].filter(Boolean).join(' · ') || '—';
}
