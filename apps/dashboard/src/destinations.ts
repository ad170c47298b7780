import { useQuery } from '@tanstack/react-query';
import { sika, withSession } from './session.js';

/** A saved payout destination (a payout method) as GET /api/v1/merchant/settings/payouts lists it. */
export interface SavedDestination {
  id: string;
  active?: boolean;
  destination?: { type?: string; country?: string; msisdn?: string; account_number?: string; operator?: string; bank_code?: string };
}

/** The environment's saved payout destinations that can be paid now, for the pages that pay out to one. */
export function useSavedDestinations(environment: string, onSignedOut: () => void): SavedDestination[] {
  const settings = useQuery({
    queryKey: ['payout-settings', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/settings/payouts'), onSignedOut),
  });
  return ((settings.data as { destinations?: SavedDestination[] } | undefined)?.destinations ?? []).filter((d) => d.active !== false);
}

/** How a saved destination is named in a list: its number or account. */
export const destinationLabel = (d: SavedDestination) => d.destination?.msisdn ?? d.destination?.account_number ?? d.id;
