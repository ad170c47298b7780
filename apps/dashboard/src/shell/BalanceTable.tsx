import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { Scrollable } from './components.js';
import { formatAmount, LanguageContext, useT } from './i18n.js';
import { sika, withSession } from './session.js';

/** The environment's balance (GET /api/v1/balance), under the key every change of it invalidates (`['balance', environment]`). */
export function useBalance(environment: string, onSignedOut: () => void) {
  return useQuery({
    queryKey: ['balance', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/balance'), onSignedOut),
  });
}

interface Funds {
  amount?: number;
  currency?: string;
}

interface Row {
  currency: string;
  available: number;
  pending: number;
  reserved: number;
  held: number;
}

/** The rows of a balance (GET /api/v1/balance), one per currency; none when nothing was ever held. */
export function balanceRows(balance: { available?: Funds[]; pending?: Funds[]; reserved?: Funds[]; held?: Funds[] } | undefined): Row[] {
  const rows = new Map<string, Row>();
  const row = (currency: string) => rows.get(currency) ?? rows.set(currency, { currency, available: 0, pending: 0, reserved: 0, held: 0 }).get(currency)!;
  for (const field of ['available', 'pending', 'reserved', 'held'] as const) for (const a of balance?.[field] ?? []) row(a.currency!)[field] += a.amount ?? 0;
  return [...rows.values()];
}

/** A balance per currency: available, pending, reserved, held for others. */
export function BalanceTable({ rows, labelledBy }: { rows: Row[]; labelledBy: string }) {
  const t = useT();
  const { language } = useContext(LanguageContext);
  return (
    <Scrollable labelledBy={labelledBy}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('balance.currency')}</th>
            <th scope="col">{t('balance.available')}</th>
            <th scope="col">{t('balance.pending')}</th>
            <th scope="col">{t('balance.reserved')}</th>
            <th scope="col">{t('balance.held')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.currency}>
              <th scope="row">{r.currency.toUpperCase()}</th>
              <td className="amount">{formatAmount(language, r.available, r.currency)}</td>
              <td className="amount">{formatAmount(language, r.pending, r.currency)}</td>
              <td className="amount">{formatAmount(language, r.reserved, r.currency)}</td>
              <td className="amount">{formatAmount(language, r.held, r.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scrollable>
  );
}
