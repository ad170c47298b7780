import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { Badge } from '../../shell/Badge.js';
import { CountrySelect, useCountry, WalletFields } from '../../shell/countries.js';
import { FailureReason } from '../../shell/failures.js';
import { ErrorMessage, isNotFound, Link, NotFound, QueryView, retryUnlessNotFound, Scrollable, useAction } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { marketplaceMessages as messages } from './marketplace.messages.js';
import type { PageProps } from '../../shell/props.js';

const MODES = ['rolling', 'weekly', 'manual'] as const;

/** One seller: their pending and available funds, their settlement schedule, a payout of their available funds, and their payouts. */
export function MarketplaceSeller({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const { action: call, error } = useAction(onSignedOut, [['marketplace', environment]]);
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  // The seller is paid in a country of the catalog, to one of its operators, in its currency.
  const [country, setCountry] = useState('SN');
  const { countries, chosen, operators } = useCountry('payout', country, onSignedOut);
  const currency = chosen?.currency ?? 'xof';
  const sellerId = id ?? '';
  const key = ['marketplace', environment, 'seller', sellerId];
  const seller = useQuery({
    queryKey: key,
    queryFn: () => withSession(() => sika.get('/api/v1/marketplace/sellers/{id}', { params: { path: { id: sellerId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const balance = useQuery({
    queryKey: [...key, 'balance'],
    queryFn: () => withSession(() => sika.get('/api/v1/marketplace/sellers/{id}/balance', { params: { path: { id: sellerId } } }), onSignedOut),
    enabled: seller.isSuccess,
  });
  const payouts = useQuery({
    queryKey: [...key, 'payouts'],
    queryFn: () => withSession(() => sika.get('/api/v1/marketplace/payouts', { params: { query: { sellerId: seller.data!.sellerId, limit: 50 } } }), onSignedOut),
    enabled: seller.isSuccess,
  });

  if (seller.isError && isNotFound(seller.error)) return <NotFound title={t('seller')} message={t('notFound')} back="marketplace" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="marketplace">{t('back')}</Link>
      </p>
      <QueryView query={seller}>
        {(s) => (
          <>
            <h1>{s.displayName}</h1>
            <ErrorMessage text={error} />
            <section aria-labelledby="seller-balance">
              <h2 id="seller-balance">{t('balance')}</h2>
              <QueryView query={balance} isEmpty={(b) => !b.balances?.length} empty={t('funds.none')}>
                {(b) => (
                  <Scrollable labelledBy="seller-balance">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('currency')}</th>
                          <th scope="col">{t('pending')}</th>
                          <th scope="col">{t('available')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {(b.balances ?? []).map((row) => (
                          <tr key={row.currency}>
                            <th scope="row">{row.currency!.toUpperCase()}</th>
                            <td className="amount">{formatAmount(language, row.pendingMinor ?? 0, row.currency!)}</td>
                            <td className="amount">{formatAmount(language, row.availableMinor ?? 0, row.currency!)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                )}
              </QueryView>
            </section>
            <section aria-labelledby="settlement">
              <h2 id="settlement">{t('changeSettlement')}</h2>
              <form
                className="inline-form"
                aria-label={t('changeSettlement')}
                onSubmit={(e: FormEvent<HTMLFormElement>) => {
                  e.preventDefault();
                  const data = new FormData(e.currentTarget);
                  call.mutate(() =>
                    sika.post('/api/v1/marketplace/sellers/{id}/settlement', {
                      params: { path: { id: s.id } },
                      body: { settlementMode: data.get('mode') as (typeof MODES)[number], settlementDelayDays: Number(data.get('delay')) },
                    }),
                  );
                }}
              >
                <label>
                  {t('settlementMode')}
                  <select name="mode" defaultValue={s.settlementMode}>
                    {MODES.map((m) => (
                      <option key={m} value={m}>
                        {t(`mode.${m}`)}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  {t('delayDays')}
                  <input name="delay" type="number" min="0" max="365" defaultValue={s.settlementDelayDays} />
                </label>
                <button type="submit" disabled={call.isPending}>
                  {t('save')}
                </button>
              </form>
            </section>
            <section aria-labelledby="seller-payout">
              <h2 id="seller-payout">{t('payOut')}</h2>
              <form
                className="inline-form"
                aria-label={t('payOut')}
                onSubmit={(e: FormEvent<HTMLFormElement>) => {
                  e.preventDefault();
                  const data = new FormData(e.currentTarget);
                  call.mutate(
                    () =>
                      sika.post('/api/v1/marketplace/sellers/{id}/payouts', {
                        params: { path: { id: s.id } },
                        body: {
                          amountMinor: minorUnits(Number(data.get('amount')), currency),
                          currency,
                          destination: { type: 'mobile_money', currency, country, operator: String(data.get('operator')), msisdn: String(data.get('msisdn')).trim() },
                        },
                        headers: { 'Idempotency-Key': idempotencyKey },
                      }),
                    { onSuccess: () => setIdempotencyKey(crypto.randomUUID()) },
                  );
                }}
              >
                <CountrySelect label={t('country')} countries={countries} value={country} onChange={setCountry} />
                <WalletFields labels={{ operator: t('operator'), msisdn: t('msisdn') }} operators={operators} callingCode={chosen?.calling_code} />
                <label>
                  {t('amount')} ({currency.toUpperCase()})
                  <input name="amount" type="number" min="0" step="any" required />
                </label>
                <button type="submit" disabled={call.isPending}>
                  {t('payOut')}
                </button>
              </form>
              <h3 id="seller-payouts">{t('payouts')}</h3>
              <QueryView query={payouts} isEmpty={(p) => !p.data?.length} empty={t('payouts.none')}>
                {(p) => (
                  <Scrollable labelledBy="seller-payouts">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">{t('when')}</th>
                          <th scope="col">{t('amount')}</th>
                          <th scope="col">{t('status')}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {(p.data ?? []).map((payout) => (
                          <tr key={payout.id}>
                            <th scope="row">{formatWhen(language, payout.created)}</th>
                            <td className="amount">
                              <Link to="payout" id={payout.id}>
                                {formatAmount(language, payout.amountMinor, payout.currency)}
                              </Link>
                            </td>
                            <td>
                              <Badge status={payout.status}>{t(`payouts.status.${payout.status}`)}</Badge>
                              {payout.status === 'failed' && (
                                <span className="reason-line">
                                  <FailureReason subject="payout" code={payout.failureCode} message={payout.failureMessage} />
                                </span>
                              )}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </Scrollable>
                )}
              </QueryView>
            </section>
          </>
        )}
      </QueryView>
    </main>
  );
}
