import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { QueryView, Scrollable } from '../../../src/shell/components.js';
import { formatAmount, formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { Link, useOperatorAction, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { heldPayoutMessages } from './heldPayouts.messages.js';

const ENVIRONMENTS = ['live', 'sandbox'] as const;
type Environment = (typeof ENVIRONMENTS)[number];

/** Where a payout goes, in a few characters: a wallet's number, or a bank account's holder and last digits. */
function destinationOf(d: { msisdn?: string; account_name?: string; account_number?: string; bank_code?: string }): string {
  if (d.account_number) return [d.account_name, `${d.bank_code ?? ''} ••${d.account_number.slice(-4)}`].filter(Boolean).join(' · ');
  return d.msisdn ?? '—';
}

/**
 * The risk team's queue of payouts held for review (docs/operator.md, "Held payouts"): every
 * merchant's, oldest first, in live or the sandbox; each released at once, or declined with a reason
 * the merchant reads. A payout decided meanwhile (by the merchant, another operator) is refused
 * (IKW-LIM-009) in the API's words, and the queue shows what is still held.
 */
export function HeldPayouts({ onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(heldPayoutMessages);
  const { language } = useContext(LanguageContext);
  const [environment, setEnvironment] = useState<Environment>('live');
  const [page, setPage] = useState(1);
  const [declining, setDeclining] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [said, setSaid] = useState<string | null>(null);
  const { action, error } = useOperatorAction(onSignedOut, [['operator-held-payouts']]);
  const held = useQuery({
    queryKey: ['operator-held-payouts', environment, page],
    queryFn: () => api.get('/api/v1/operator/payouts/held', { params: { query: { environment, page, limit: 20 } } }),
  });
  const release = (id: string) => {
    setSaid(null);
    action.mutate(() => api.post('/api/v1/operator/payouts/{id}/release', { params: { path: { id } } }), { onSuccess: () => setSaid(t('held.released', { id })) });
  };
  const decline = (e: FormEvent) => {
    e.preventDefault();
    const id = declining;
    if (!id) return;
    setSaid(null);
    const body = reason.trim() ? { reason: reason.trim() } : {};
    action.mutate(() => api.post('/api/v1/operator/payouts/{id}/decline', { params: { path: { id } }, body }), {
      onSuccess: () => {
        setSaid(t('held.declined', { id }));
        setDeclining(null);
        setReason('');
      },
    });
  };
  return (
    <main className="page">
      <h1>{t('held.title')}</h1>
      <p>{t('held.intro')}</p>
      <label className="inline">
        {t('held.environment')}
        <select
          value={environment}
          onChange={(e) => {
            setEnvironment(e.target.value as Environment);
            setPage(1);
            setDeclining(null);
          }}
        >
          {ENVIRONMENTS.map((env) => (
            <option key={env} value={env}>
              {t(`held.environment.${env}`)}
            </option>
          ))}
        </select>
      </label>
      {said && <p role="status">{said}</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <h2 id="held-list">{t('held.list')}</h2>
      <QueryView query={held} isEmpty={(d) => d.data.length === 0} empty={t('held.empty')}>
        {(list) => (
          <>
            <Scrollable labelledBy="held-list">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('held.merchant')}</th>
                    <th scope="col">{t('held.amount')}</th>
                    <th scope="col">{t('held.destination')}</th>
                    <th scope="col">{t('held.created')}</th>
                    <th scope="col">{t('held.actions')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map(({ merchant_id, payout }) => (
                    <tr key={payout.id}>
                      <th scope="row">
                        <Link to="merchant" id={merchant_id}>
                          {merchant_id}
                        </Link>
                        <span className="row-detail">{payout.id}</span>
                      </th>
                      <td className="amount">{formatAmount(language, payout.amount, payout.currency)}</td>
                      <td>{destinationOf(payout.destination as Parameters<typeof destinationOf>[0])}</td>
                      <td className="wrap">{formatWhen(language, payout.created)}</td>
                      <td>
                        <div className="actions">
                          <button type="button" disabled={action.isPending} onClick={() => release(payout.id)} aria-label={`${t('held.release')} ${payout.id}`}>
                            {t('held.release')}
                          </button>
                          <button type="button" className="secondary" disabled={action.isPending} onClick={() => setDeclining(payout.id)} aria-label={`${t('held.decline')} ${payout.id}`}>
                            {t('held.decline')}
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
            <nav className="actions" aria-label={t('held.pages')}>
              <button type="button" className="secondary" disabled={page === 1} onClick={() => setPage(page - 1)}>
                {t('held.previous')}
              </button>
              <button type="button" className="secondary" disabled={!list.has_more} onClick={() => setPage(page + 1)}>
                {t('held.next')}
              </button>
            </nav>
          </>
        )}
      </QueryView>
      {declining && (
        <form className="panel" onSubmit={decline} aria-labelledby="held-decline">
          <h2 id="held-decline">{t('held.decline.title', { id: declining })}</h2>
          <label>
            {t('held.decline.reason')}
            <textarea value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
          </label>
          <div className="actions">
            <button type="submit" disabled={action.isPending}>
              {t('held.decline.submit')}
            </button>
            <button type="button" className="secondary" onClick={() => setDeclining(null)}>
              {t('held.cancel')}
            </button>
          </div>
        </form>
      )}
    </main>
  );
}
