import { useMutation, useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { CountrySelect, useCountry } from '../../shell/countries.js';
import { ErrorMessage, errorText, Link, NavigationContext, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { marketplaceMessages as messages } from './marketplace.messages.js';
import type { PageProps } from '../../shell/props.js';

const MODES = ['rolling', 'weekly', 'manual'] as const;

/** The marketplace: its funds, sellers, commission rules, orders (a new one split among sellers), and settlements. */
export function Marketplace({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const go = useContext(NavigationContext);
  const { action: call, submit: submitForm, error, setError } = useAction(onSignedOut, [['marketplace', environment]]);
  const [settled, setSettled] = useState<number | null>(null);
  const [lines, setLines] = useState(1);
  // Orders are in XOF (as the commission rules): the transaction country is one of the catalog's that pays in it.
  const [country, setCountry] = useState('SN');
  const xofCountries = useCountry('payin', country, onSignedOut).countries.filter((c) => c.currency?.toLowerCase() === 'xof');
  const useList = <T,>(name: string, call: () => Promise<T>) => useQuery({ queryKey: ['marketplace', environment, name], queryFn: () => withSession(call, onSignedOut) });
  const funds = useList('balance', () => sika.get('/api/v1/marketplace/balance'));
  const sellers = useList('sellers', () => sika.get('/api/v1/marketplace/sellers', { params: { query: { limit: 100 } } }));
  const rules = useList('rules', () => sika.get('/api/v1/marketplace/commission-rules', { params: { query: { limit: 100 } } }));
  const orders = useList('orders', () => sika.get('/api/v1/marketplace/orders', { params: { query: { limit: 50 } } }));
  const settlements = useList('settlements', () => sika.get('/api/v1/marketplace/settlements', { params: { query: { limit: 50 } } }));
  const submit = (send: (data: FormData) => Promise<unknown>) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    submitForm(e.currentTarget, send);
  };
  const createOrder = useMutation({
    mutationFn: (data: FormData) => {
      const currency = 'xof';
      return sika.post('/api/v1/marketplace/orders', {
        body: {
          currency,
          transactionCountry: String(data.get('country') || 'SN'),
          ...(data.get('buyer') ? { buyerName: String(data.get('buyer')) } : {}),
          lines: Array.from({ length: lines }, (_, n) => ({
            sellerId: String(data.get(`seller${n}`)),
            amountMinor: minorUnits(Number(data.get(`amount${n}`)), currency),
            ...(data.get('rule') ? { commissionRuleId: String(data.get('rule')) } : {}),
          })),
        },
      });
    },
    onSuccess: (order) => go('marketplaceOrder', order.id),
    onError: (err: unknown) => setError(errorText(err, t('error.generic'))),
  });
  const ruleList = (rules.data?.data ?? []) as { id: string; name: string; percentBasisPoints: number; fixedFeeMinor: number; currency: string; isActive: boolean }[];
  const sellerList = (sellers.data?.data ?? []) as { id: string; sellerId: string; displayName: string; settlementMode: string; settlementDelayDays: number }[];

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <ErrorMessage text={error} />
      <section aria-labelledby="funds">
        <h2 id="funds">{t('funds')}</h2>
        <QueryView query={funds} isEmpty={(f) => !f.balances?.length} empty={t('funds.none')}>
          {(f) => (
            <Scrollable labelledBy="funds">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('currency')}</th>
                    <th scope="col">{t('sellersPending')}</th>
                    <th scope="col">{t('sellersAvailable')}</th>
                    <th scope="col">{t('commission')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(f.balances ?? []).map((b) => (
                    <tr key={b.currency}>
                      <th scope="row">{b.currency!.toUpperCase()}</th>
                      <td className="amount">{formatAmount(language, b.sellerPendingMinor ?? 0, b.currency!)}</td>
                      <td className="amount">{formatAmount(language, b.sellerAvailableMinor ?? 0, b.currency!)}</td>
                      <td className="amount">{formatAmount(language, b.commissionMinor ?? 0, b.currency!)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>

      <section aria-labelledby="sellers">
        <h2 id="sellers">{t('sellers')}</h2>
        <form
          className="inline-form"
          aria-label={t('register')}
          onSubmit={submit((data) =>
            sika.post('/api/v1/marketplace/sellers', {
              body: { sellerId: String(data.get('sellerId')), displayName: String(data.get('name')), settlementMode: data.get('mode') as (typeof MODES)[number], settlementDelayDays: Number(data.get('delay') || 0) },
            }),
          )}
        >
          <label>
            {t('sellerId')}
            <input name="sellerId" required pattern="[A-Za-z0-9][A-Za-z0-9_.:@\-]*" maxLength={128} />
          </label>
          <label>
            {t('displayName')}
            <input name="name" required maxLength={256} />
          </label>
          <label>
            {t('settlementMode')}
            <select name="mode" defaultValue="rolling">
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {t(`mode.${m}`)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('delayDays')}
            <input name="delay" type="number" min="0" max="365" defaultValue="7" />
          </label>
          <button type="submit" disabled={call.isPending}>
            {t('register')}
          </button>
        </form>
        <QueryView query={sellers} isEmpty={() => sellerList.length === 0} empty={t('sellers.none')}>
          {() => (
            <Scrollable labelledBy="sellers">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('displayName')}</th>
                    <th scope="col">{t('sellerId')}</th>
                    <th scope="col">{t('settlementMode')}</th>
                  </tr>
                </thead>
                <tbody>
                  {sellerList.map((s) => (
                    <tr key={s.id}>
                      <th scope="row">
                        <Link to="marketplaceSeller" id={s.id}>
                          {s.displayName}
                        </Link>
                      </th>
                      <td>{s.sellerId}</td>
                      <td>
                        {t(`mode.${s.settlementMode as 'rolling'}`)}, {s.settlementDelayDays}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>

      <section aria-labelledby="rules">
        <h2 id="rules">{t('rules')}</h2>
        <form
          className="inline-form"
          aria-label={t('createRule')}
          onSubmit={submit((data) =>
            sika.post('/api/v1/marketplace/commission-rules', {
              body: { name: String(data.get('name')), currency: 'xof', percentBasisPoints: Math.round(Number(data.get('percent') || 0) * 100), fixedFeeMinor: minorUnits(Number(data.get('fixed') || 0), 'xof') },
            }),
          )}
        >
          <label>
            {t('ruleName')}
            <input name="name" required maxLength={256} />
          </label>
          <label>
            {t('percent')} (%)
            <input name="percent" type="number" min="0" max="100" step="0.01" />
          </label>
          <label>
            {t('fixedFee')} (XOF)
            <input name="fixed" type="number" min="0" step="any" />
          </label>
          <button type="submit" disabled={call.isPending}>
            {t('createRule')}
          </button>
        </form>
        <QueryView query={rules} isEmpty={() => ruleList.length === 0} empty={t('rules.none')}>
          {() => (
            <Scrollable labelledBy="rules">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('ruleName')}</th>
                    <th scope="col">{t('percent')}</th>
                    <th scope="col">{t('fixedFee')}</th>
                    <th scope="col">{t('active')}</th>
                  </tr>
                </thead>
                <tbody>
                  {ruleList.map((rule) => (
                    <tr key={rule.id}>
                      <th scope="row">{rule.name}</th>
                      <td>{new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 2 }).format(rule.percentBasisPoints / 10_000)}</td>
                      <td className="amount">{formatAmount(language, rule.fixedFeeMinor, rule.currency)}</td>
                      <td>
                        {rule.isActive ? t('on') : t('off')}{' '}
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`${rule.isActive ? t('switchOff') : t('switchOn')}: ${rule.name}`}
                          onClick={() => call.mutate(() => sika.patch('/api/v1/marketplace/commission-rules/{id}', { params: { path: { id: rule.id } }, body: { isActive: !rule.isActive } }))}
                        >
                          {rule.isActive ? t('switchOff') : t('switchOn')}
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>

      <section aria-labelledby="orders">
        <h2 id="orders">{t('orders')}</h2>
        <form
          aria-label={t('newOrder')}
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            setError(null);
            createOrder.mutate(new FormData(e.currentTarget));
          }}
        >
          <div className="inline-form">
            <CountrySelect label={t('country')} name="country" countries={xofCountries} value={country} onChange={setCountry} />
            <label>
              {t('buyer')}
              <input name="buyer" maxLength={256} />
            </label>
            <label>
              {t('orderRule')}
              <select name="rule" defaultValue="">
                <option value="">{t('noRule')}</option>
                {ruleList
                  .filter((r) => r.isActive)
                  .map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.name}
                    </option>
                  ))}
              </select>
            </label>
          </div>
          {Array.from({ length: lines }, (_, n) => (
            <div className="inline-form" key={n}>
              <label>
                {t('lineSeller', { n: n + 1 })}
                <select name={`seller${n}`} required>
                  {sellerList.map((s) => (
                    <option key={s.id} value={s.sellerId}>
                      {s.displayName}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                {t('lineAmount', { n: n + 1 })} (XOF)
                <input name={`amount${n}`} type="number" min="0" step="any" required />
              </label>
            </div>
          ))}
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setLines(lines + 1)} disabled={lines >= 100}>
              {t('addLine')}
            </button>
            <button type="submit" disabled={createOrder.isPending || sellerList.length === 0}>
              {t('createOrder')}
            </button>
          </div>
        </form>
        <QueryView query={orders} isEmpty={(o) => !o.data?.length} empty={t('orders.none')}>
          {(o) => (
            <Scrollable labelledBy="orders">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('order')}</th>
                    <th scope="col">{t('amount')}</th>
                    <th scope="col">{t('commission')}</th>
                    <th scope="col">{t('status')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(o.data ?? []).map((order) => (
                    <tr key={order.id}>
                      <th scope="row">
                        <Link to="marketplaceOrder" id={order.id}>
                          {order.buyerName ?? order.id}
                        </Link>
                      </th>
                      <td className="amount">{formatAmount(language, order.amountMinor, order.currency)}</td>
                      <td className="amount">{formatAmount(language, order.commissionMinor, order.currency)}</td>
                      <td>
                        <Badge status={order.status}>{t(`status.${order.status}`)}</Badge>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>

      <section aria-labelledby="settlements">
        <h2 id="settlements">{t('settlements')}</h2>
        <button
          type="button"
          disabled={call.isPending}
          onClick={() =>
            call.mutate(async () => {
              const run = await sika.post('/api/v1/marketplace/settlements/process-due', { body: {} });
              setSettled(run.settledCount ?? 0);
            })
          }
        >
          {t('runDue')}
        </button>
        {settled !== null && <p role="status">{t('ranDue', { count: settled })}</p>}
        <QueryView query={settlements} isEmpty={(s) => !s.data?.length} empty={t('settlements.none')}>
          {(s) => (
            <Scrollable labelledBy="settlements">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('seller')}</th>
                    <th scope="col">{t('amount')}</th>
                    <th scope="col">{t('settledAt')}</th>
                  </tr>
                </thead>
                <tbody>
                  {((s.data ?? []) as { id: string; sellerId: string; amountMinor: number; currency: string; created?: number }[]).map((row) => (
                    <tr key={row.id}>
                      <th scope="row">{row.sellerId}</th>
                      <td className="amount">{formatAmount(language, row.amountMinor, row.currency)}</td>
                      <td>{formatWhen(language, row.created)}</td>
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
