import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorMessage, Link, useAction } from '../../shell/components.js';
import { CountrySelect, useCountry, WalletFields } from '../../shell/countries.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages } from './billing.messages.js';
import { invoiceQuery } from './billing.queries.js';

/** While the customer has not answered, the page asks this often how the payment stands. */
const FOLLOW_MS = 2000;

/**
 * Collects what is left of an open invoice by mobile money: a payment intent for it (the billing
 * API's), confirmed with the customer's number; the customer approves on their phone, and the
 * invoice is paid by the payment (its money on the balance), which the page follows.
 */
export function InvoiceCollect({ invoiceId, amount, environment, onSignedOut }: { invoiceId: string; amount: string; environment: string; onSignedOut: () => void }) {
  const t = useMessages(messages);
  const [country, setCountry] = useState('SN');
  const { countries, chosen, operators } = useCountry('payin', country, onSignedOut);
  const [paymentId, setPaymentId] = useState<string | null>(null);
  const { action, error } = useAction(onSignedOut, [
    ['billing', environment],
    ['balance', environment],
  ]);
  const payment = useQuery({
    queryKey: ['billing', environment, 'invoice', invoiceId, 'collection', paymentId],
    queryFn: () => withSession(() => sika.get('/api/v1/payment-intents/{id}', { params: { path: { id: paymentId! } } }), onSignedOut),
    enabled: paymentId !== null,
    refetchInterval: (q) => (q.state.data && ['succeeded', 'failed', 'canceled'].includes(q.state.data.status ?? '') ? false : FOLLOW_MS),
  });
  const status = payment.data?.status;
  // The invoice is paid by the payment a moment after it succeeds (a bus consumer): asked again until it is.
  useQuery({ ...invoiceQuery(environment, invoiceId, onSignedOut), refetchInterval: status === 'succeeded' ? FOLLOW_MS : false });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const mobile_money = { country, operator: String(form.get('operator')), msisdn: String(form.get('msisdn')).trim() };
    action.mutate(async () => {
      const intent = await sika.post('/api/v1/billing/invoices/{id}/pay', { params: { path: { id: invoiceId } }, body: { transactionCountry: country } });
      const id = (intent as { id: string }).id;
      await sika.post('/api/v1/payment-intents/{id}/confirm', { params: { path: { id } }, body: { payment_method: { type: 'mobile_money', mobile_money } } });
      // Followed once the operator has it: a confirmation refused leaves nothing to wait for.
      setPaymentId(id);
    });
  };

  return (
    <section aria-labelledby="invoice-collect">
      <h2 id="invoice-collect">{t('collect')}</h2>
      <p className="help">{t('collect.help', { amount })}</p>
      <ErrorMessage text={error} />
      {paymentId && status !== 'succeeded' && (
        <p role="status">
          {t(status === 'failed' || status === 'canceled' ? 'collect.failed' : 'collect.asked', { id: paymentId })}{' '}
          <Link to="payment" id={paymentId}>
            <code>{paymentId}</code>
          </Link>
        </p>
      )}
      <form className="inline-form" onSubmit={submit} aria-labelledby="invoice-collect">
        <CountrySelect label={t('collect.country')} countries={countries} value={country} onChange={setCountry} />
        <WalletFields labels={{ operator: t('collect.operator'), msisdn: t('collect.msisdn') }} operators={operators} callingCode={chosen?.calling_code} />
        <button type="submit" disabled={action.isPending}>
          {t('collect.submit')}
        </button>
      </form>
    </section>
  );
}
