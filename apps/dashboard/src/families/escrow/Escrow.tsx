import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, Link, NavigationContext, QueryView, Scrollable, FilterSelect } from '../../shell/components.js';
import { destinationLabel, useSavedDestinations } from '../../shell/destinations.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { escrowMessages as messages } from './escrow.messages.js';
import type { PageProps } from '../../shell/props.js';

const STATUSES = ['draft', 'pending_funding', 'funded', 'disputed', 'completed', 'canceled'] as const;
type Status = (typeof STATUSES)[number];

/** Escrow contracts of the environment shown: a new one, and the list by status. */
export function Escrow({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const [status, setStatus] = useState<Status | ''>('');
  const [destination, setDestination] = useState<'merchant_balance' | 'payout_method'>('merchant_balance');
  const [error, setError] = useState<string | null>(null);
  const destinations = useSavedDestinations(environment, onSignedOut);
  const contracts = useQuery({
    queryKey: ['escrow-contracts', environment, status],
    queryFn: () => withSession(() => sika.get('/api/v1/escrow/contracts', { params: { query: { limit: 50, ...(status ? { status } : {}) } } }), onSignedOut),
  });
  const create = useMutation({
    mutationFn: (form: FormData) => {
      const text = (name: string) => String(form.get(name) ?? '').trim();
      const currency = text('currency') || 'xof';
      return sika.post('/api/v1/escrow/contracts', {
        body: {
          currency,
          amountMinor: minorUnits(Number(text('amount')), currency),
          fundingSourceType: text('funding') === 'payment_intent' ? 'payment_intent' : 'merchant_balance',
          defaultReleaseMode: text('mode') === 'immediate' ? 'immediate' : 'manual',
          ledgerDestinationType: destination,
          ...(destination === 'payout_method' && text('method') ? { defaultPayoutMethodId: text('method') } : {}),
          ...(text('autoRelease') ? { autoReleaseAtUtc: new Date(text('autoRelease')).toISOString() } : {}),
        },
      });
    },
    onSuccess: (contract) => {
      void queries.invalidateQueries({ queryKey: ['escrow-contracts', environment] });
      go('escrowContract', contract.id);
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <section aria-labelledby="new-contract">
        <h2 id="new-contract">{t('new')}</h2>
        <ErrorMessage text={error} />
        <form
          className="inline-form"
          aria-label={t('new')}
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            setError(null);
            create.mutate(new FormData(e.currentTarget));
          }}
        >
          <label>
            {t('amount')}
            <input name="amount" type="number" min="0" step="any" required />
          </label>
          <label>
            {t('currency')}
            <select name="currency" defaultValue="xof">
              {['xof', 'xaf', 'ghs', 'kes', 'ngn'].map((c) => (
                <option key={c} value={c}>
                  {c.toUpperCase()}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('funding')}
            <select name="funding" defaultValue="merchant_balance">
              <option value="merchant_balance">{t('funding.merchant_balance')}</option>
              <option value="payment_intent">{t('funding.payment_intent')}</option>
            </select>
          </label>
          <label>
            {t('releaseMode')}
            <select name="mode" defaultValue="manual">
              <option value="manual">{t('releaseMode.manual')}</option>
              <option value="immediate">{t('releaseMode.immediate')}</option>
            </select>
          </label>
          <label>
            {t('destination')}
            <select value={destination} onChange={(e) => setDestination(e.target.value as typeof destination)}>
              <option value="merchant_balance">{t('destination.merchant_balance')}</option>
              <option value="payout_method">{t('destination.payout_method')}</option>
            </select>
          </label>
          {destination === 'payout_method' && (
            <label>
              {t('payoutMethod')}
              <select name="method">
                {destinations.map((d) => (
                  <option key={d.id} value={d.id}>
                    {destinationLabel(d)}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label>
            {t('autoRelease')}
            <input name="autoRelease" type="datetime-local" />
          </label>
          <button type="submit" disabled={create.isPending}>
            {t('create')}
          </button>
        </form>
      </section>

      <section aria-labelledby="contracts">
        <h2 id="contracts">{t('list')}</h2>
        <FilterSelect label={t('status')} value={status} values={STATUSES} any={t('status.all')} words={(s) => t(`status.${s}`)} onChange={setStatus} />
        <QueryView query={contracts} isEmpty={(c) => !c.data?.length} empty={t('none')}>
          {(list) => (
            <Scrollable labelledBy="contracts">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('contract')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('amount')}</th>
                    <th scope="col">{t('held')}</th>
                    <th scope="col">{t('created')}</th>
                  </tr>
                </thead>
                <tbody>
                  {(list.data ?? []).map((c) => (
                    <tr key={c.id}>
                      <th scope="row">
                        <Link to="escrowContract" id={c.id}>
                          {c.id}
                        </Link>
                      </th>
                      <td>
                        <Badge status={c.status}>{t(`status.${c.status}`)}</Badge>
                      </td>
                      <td className="amount">{formatAmount(language, c.amountMinor ?? c.fundedMinor, c.currency)}</td>
                      <td className="amount">{formatAmount(language, c.heldMinor, c.currency)}</td>
                      <td>{formatWhen(language, c.created, 'date')}</td>
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
