import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { formatAmount, LanguageContext, useT } from '../i18n.js';
import { QueryView, Scrollable } from '../components.js';
import { sika, withSession } from '../session.js';
import type { PageProps } from './props.js';

interface Row {
  currency: string;
  available: number;
  pending: number;
  reserved: number;
  held: number;
}

/** The balance per currency of the environment shown (GET /api/v1/balance). */
export function Home({ environment, onSignedOut }: PageProps) {
  const t = useT();
  const { language } = useContext(LanguageContext);
  const balance = useQuery({
    queryKey: ['balance', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/balance'), onSignedOut),
  });
  const rows = new Map<string, Row>();
  const row = (currency: string) => rows.get(currency) ?? rows.set(currency, { currency, available: 0, pending: 0, reserved: 0, held: 0 }).get(currency)!;
  for (const field of ['available', 'pending', 'reserved'] as const) for (const a of balance.data?.[field] ?? []) row(a.currency!)[field] += a.amount ?? 0;
  for (const h of balance.data?.held ?? []) row(h.currency!).held += h.amount ?? 0;

  return (
    <main className="page">
      <h1>{t('home.title')}</h1>
      <section aria-labelledby="balances">
        <h2 id="balances">{t('home.balances')}</h2>
        <QueryView query={balance} isEmpty={() => rows.size === 0} empty={t('home.empty')}>
          {() => (
            <Scrollable labelledBy="balances">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('home.currency')}</th>
                    <th scope="col">{t('home.available')}</th>
                    <th scope="col">{t('home.pending')}</th>
                    <th scope="col">{t('home.reserved')}</th>
                    <th scope="col">{t('home.held')}</th>
                  </tr>
                </thead>
                <tbody>
                  {[...rows.values()].map((r) => (
                    <tr key={r.currency}>
                      <th scope="row">{r.currency.toUpperCase()}</th>
                      <td>{formatAmount(language, r.available, r.currency)}</td>
                      <td>{formatAmount(language, r.pending, r.currency)}</td>
                      <td>{formatAmount(language, r.reserved, r.currency)}</td>
                      <td>{formatAmount(language, r.held, r.currency)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>
    </main>
  );
}
