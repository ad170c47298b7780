import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage, errorText, FilterSelect, NavigationContext, QueryView } from '../../shell/components.js';
import { LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { billingMessages as messages, INVOICE_STATUSES } from './billing.messages.js';
import { InvoiceTable } from './billing.tables.js';
import { customersQuery, productsQuery, type PriceRow } from './billing.queries.js';
import { usePriceText } from './Products.js';
import { InvoiceReminders } from './InvoiceReminders.js';
import type { PageProps } from '../../shell/props.js';

type Status = (typeof INVOICE_STATUSES)[number];

/** Invoices: a new one (made, then sent to the customer), and the list, newest first, filtered by status, each opening to its page. */
export function Invoices({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const [status, setStatus] = useState<Status | ''>('');
  const list = useQuery({
    queryKey: ['billing', environment, 'invoices', status],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/invoices', { params: { query: { limit: 100, ...(status ? { status } : {}) } } }), onSignedOut),
  });
  return (
    <main className="page">
      <h1 id="invoice-list">{t('invoices.title')}</h1>
      <NewInvoice environment={environment} onSignedOut={onSignedOut} />
      <InvoiceReminders environment={environment} onSignedOut={onSignedOut} />
      <FilterSelect label={t('filter')} value={status} values={INVOICE_STATUSES} any={t('all')} words={(s) => t(`inv.${s}`)} onChange={setStatus} inline={false} />
      <QueryView query={list} isEmpty={(l) => !l.data?.length} empty={t('invoices.none')}>
        {(l) => <InvoiceTable rows={l.data ?? []} labelledBy="invoice-list" environment={environment} onSignedOut={onSignedOut} />}
      </QueryView>
    </main>
  );
}

const NEW_CUSTOMER = '__new';
const FREE_TEXT = '__text';
interface Line {
  key: number;
  /** A price's id, FREE_TEXT, or '' (the first price, else free text). */
  price: string;
  quantity: string;
  description: string;
  unitAmount: string;
}
const newLine = (key: number): Line => ({ key, price: '', quantity: '1', description: '', unitAmount: '' });

/**
 * The "New invoice" form: a customer picked or added by e-mail, lines each from a product's one-time
 * or recurring price or in free text with its unit amount (added and removed at will); a due date and a memo. It makes a
 * draft, then sends it (POST …/send finalizes it and e-mails the customer the link in the language
 * chosen); one Idempotency-Key per filled-in form, so a double click makes one invoice.
 */
function NewInvoice({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const priceText = usePriceText();
  const { language } = useContext(LanguageContext);
  const go = useContext(NavigationContext);
  const queries = useQueryClient();
  const customers = useQuery(customersQuery(environment, '', onSignedOut));
  const products = useQuery(productsQuery(environment, onSignedOut));
  const [customer, setCustomer] = useState('');
  const [lines, setLines] = useState<Line[]>([newLine(0)]);
  const [error, setError] = useState<string | null>(null);
  // The refusal itself: live closed says what to do (ErrorMessage).
  const [failure, setFailure] = useState<unknown>(null);
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const sending = useRef(false);
  const prices = (products.data?.data ?? []).filter((p) => p.active).flatMap((p) => ((p.prices ?? []) as PriceRow[]).map((price) => ({ product: p.name, price })));
  const people = customers.data?.data ?? [];
  const chosenCustomer = customer || (people[0]?.id ?? NEW_CUSTOMER);
  const kindOf = (l: Line) => l.price || prices[0]?.price.id || FREE_TEXT;
  // Only free-text lines: the form names the currency (a price line brings its own).
  const allFreeText = lines.every((l) => kindOf(l) === FREE_TEXT);

  const create = useMutation({
    mutationFn: async (input: { body: Record<string, unknown>; send: boolean; language: string }) => {
      const made = await withSession(() => sika.post('/api/v1/merchant/invoices', { body: input.body as never, headers: { 'Idempotency-Key': idempotencyKey } }), onSignedOut);
      if (!input.send) return made;
      return withSession(() => sika.post('/api/v1/merchant/invoices/{id}/send', { params: { path: { id: made.id } }, body: { language: input.language as 'en' | 'fr' } }), onSignedOut);
    },
    onSuccess: (invoice) => {
      setError(null);
      setFailure(null);
      setIdempotencyKey(crypto.randomUUID());
      void queries.invalidateQueries({ queryKey: ['billing', environment] });
      go('invoice', invoice.id);
    },
    onError: (err) => {
      setError(errorText(err, t('error.generic')));
      setFailure(err);
    },
  });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (sending.current) return;
    const data = new FormData(e.currentTarget);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const who = chosenCustomer === NEW_CUSTOMER ? { customer_email: text('customer_email'), ...(text('customer_name') ? { customer_name: text('customer_name') } : {}) } : { customer: chosenCustomer };
    const items = lines.map((l) => (kindOf(l) === FREE_TEXT ? { description: l.description.trim(), unit_amount: Number(l.unitAmount), quantity: Number(l.quantity) } : { price: kindOf(l), quantity: Number(l.quantity) }));
    const what = { items, ...(allFreeText ? { currency: text('currency') || 'xof' } : {}), ...(text('memo') ? { description: text('memo') } : {}) };
    const body = { ...who, ...what, ...(text('due_date') ? { due_date: text('due_date') } : {}) };
    sending.current = true;
    create.mutate({ body, send: (e.nativeEvent as SubmitEvent).submitter?.getAttribute('value') !== 'draft', language: text('language') || language }, { onSettled: () => (sending.current = false) });
  };

  const setLine = (key: number, change: Partial<Line>) => setLines((all) => all.map((l) => (l.key === key ? { ...l, ...change } : l)));
  return (
    <details className="new-invoice">
      <summary>{t('invoices.new')}</summary>
      <form className="stacked-form" aria-label={t('invoices.new')} onSubmit={submit} onChange={() => setIdempotencyKey(crypto.randomUUID())}>
        <label>
          {t('customer')}
          <select name="customer" value={chosenCustomer} onChange={(e) => setCustomer(e.target.value)}>
            {people.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name ? `${c.name} (${c.email ?? c.id})` : (c.email ?? c.id)}
              </option>
            ))}
            <option value={NEW_CUSTOMER}>{t('invoices.newCustomer')}</option>
          </select>
        </label>
        {chosenCustomer === NEW_CUSTOMER && (
          <>
            <label>
              {t('email')}
              <input name="customer_email" type="email" required autoComplete="off" />
            </label>
            <label>
              {t('name.optional')}
              <input name="customer_name" autoComplete="off" />
            </label>
          </>
        )}
        <fieldset>
          <legend>{t('lines')}</legend>
          {lines.map((l, n) => (
            <div key={l.key} className="inline-form">
              <label>
                {t('invoices.lineN', { n: String(n + 1) })}
                <select value={kindOf(l)} onChange={(e) => setLine(l.key, { price: e.target.value })}>
                  {prices.map(({ product, price }) => (
                    <option key={price.id} value={price.id}>
                      {product} — {priceText(price)}
                    </option>
                  ))}
                  <option value={FREE_TEXT}>{t('invoices.freeText')}</option>
                </select>
              </label>
              {kindOf(l) === FREE_TEXT && (
                <>
                  <label>
                    {t('invoices.lineDescription', { n: String(n + 1) })}
                    <input required maxLength={500} value={l.description} onChange={(e) => setLine(l.key, { description: e.target.value })} />
                  </label>
                  <label>
                    {t('invoices.unitAmount', { n: String(n + 1) })}
                    <input type="number" min="0" step="1" required value={l.unitAmount} onChange={(e) => setLine(l.key, { unitAmount: e.target.value })} />
                  </label>
                </>
              )}
              <label>
                {t('quantity')}
                <input type="number" min="1" step="1" required value={l.quantity} onChange={(e) => setLine(l.key, { quantity: e.target.value })} />
              </label>
              {lines.length > 1 && (
                <button type="button" className="secondary" onClick={() => setLines(lines.filter((x) => x.key !== l.key))}>
                  {t('invoices.removeLine', { n: String(n + 1) })}
                </button>
              )}
            </div>
          ))}
          {allFreeText && (
            <label>
              {t('currency')}
              <select name="currency" defaultValue="xof">
                {['xof', 'xaf', 'ghs', 'ngn', 'kes'].map((c) => (
                  <option key={c} value={c}>
                    {c.toUpperCase()}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="button" className="secondary" onClick={() => setLines([...lines, newLine(Date.now())])}>
            {t('invoices.addLine')}
          </button>
        </fieldset>
        <label>
          {t('dueDate')}
          <input name="due_date" type="date" />
        </label>
        <label>
          {t('invoices.memo')}
          <textarea name="memo" rows={2} maxLength={1000} />
        </label>
        <label>
          {t('invoices.language')}
          <select name="language" defaultValue={language}>
            <option value="en">English</option>
            <option value="fr">Français</option>
          </select>
        </label>
        <div className="actions">
          <button type="submit" value="send" disabled={create.isPending}>
            {t('invoices.createSend')}
          </button>
          <button type="submit" value="draft" className="secondary" disabled={create.isPending}>
            {t('invoices.createDraft')}
          </button>
        </div>
      </form>
      <ErrorMessage text={error} error={failure} />
    </details>
  );
}
