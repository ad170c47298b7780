import { useQuery } from '@tanstack/react-query';
import { sika, withSession } from './session.js';

/** The catalog's countries with their operators for money in (`payin`) or out (`payout`); asked once per session, it does not change. */
export function useCountries(direction: 'payin' | 'payout', onSignedOut: () => void) {
  return useQuery({
    queryKey: ['countries', direction],
    queryFn: () => withSession(() => sika.get('/api/v1/geography/countries', { params: { query: { direction } } }), onSignedOut),
    staleTime: Infinity,
  });
}
