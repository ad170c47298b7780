import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useContext, useRef, useState, type FormEvent } from 'react';
import { balanceRows, useBalance } from '../../shell/BalanceTable.js';
import { StatusCell } from '../../shell/failures.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages, useT } from '../../shell/i18n.js';
import { CopyableId, CsvExport, ErrorMessage, errorText, Link, QueryView, RowName, Scrollable, useCanWrite } from '../../shell/components.js';
import { utcDay } from '../../shell/days.js';
import { sika, withSession } from '../../shell/session.js';
import { destinationLabel, useSavedDestinations, type SavedDestination } from '../../shell/destinations.js';
import { CountrySelect, useCatalogNames, useCountries, useCountry, WalletFields } from '../../shell/countries.js';
import { BankFields, useBanks } from '../../shell/BankFields.js';
import { useSecondFactor } from '../../shell/secondFactor.js';
import { PayoutFreezeNotice, useLimits } from '../../shell/limits.js';
import type { PageProps } from '../../shell/props.js';
import { heldPayoutMessages } from './payouts.messages.js';

/** How often a list with a payout on its way asks for its statuses again. */
const PENDING_REFRESH_MS = 3_000;

const STATUSES = ['pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
type Status = (typeof STATUSES)[number];

/** Where a reviewed payout goes: a wallet, or a bank account with the bank's name for its holder (null: the bank tells none, the user types it). */
type DraftDestination = { type: 'mobile_money'; country: string; operator: string; msisdn: string } | { type: 'bank'; bank_code: string; bank_name: string; account_number: string; account_name: string | null };

interface Draft {
  amount: number;
  currency: string;
  destination: DraftDestination;
  fee: number;
  total: number;
  /** One key per reviewed payout: confirming twice sends the same request, which pays once. */
  idempotencyKey: string;
}

/** Payouts of the environment shown: a new one to a wallet or a bank account (reviewed with its fee, and a bank account with its holder's name, first), and the list. */
export function Payouts({ environment, onSignedOut }: PageProps) {
  const t = useT();
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const held = useMessages(heldPayoutMessages);
  const [status, setStatus] = useState<Status | ''>('');
  const [heldOnly, setHeldOnly] = useState(false);
  const [page, setPage] = useState(1);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const [country, setCountry] = useState('SN');
  const [sendTo, setSendTo] = useState<'mobile_money' | 'bank'>('mobile_money');
  const [typedHolder, setTypedHolder] = useState('');
  // A saved mobile money destination fills the form (the API takes the destination itself).
  const saved = useSavedDestinations(environment, onSignedOut).filter((d) => d.destination?.type === 'mobile_money' && d.destination.msisdn);
  const [prefill, setPrefill] = useState<SavedDestination | null>(null);
  const choose = (id: string) => {
    const d = saved.find((s) => s.id === id) ?? null;
    setPrefill(d);
    if (d?.destination?.country) setCountry(d.destination.country.toUpperCase());
  };

  const wallets = useCountry('payout', country, onSignedOut);
  // A bank account may be in any country of the catalog, mobile money payouts or not (Nigeria).
  const everyCountry = useCountries(undefined, onSignedOut).data?.data ?? [];
  const countries = sendTo === 'bank' ? everyCountry : wallets.countries;
  const chosen = countries.find((c) => c.id === country);
  const operators = wallets.operators;
  const names = useCatalogNames(onSignedOut);
  const currency = chosen?.currency ?? 'xof';
  const banks = useBanks(environment, currency, sendTo === 'bank', onSignedOut);
  const available = balanceRows(useBalance(environment, onSignedOut).data).find((r) => r.currency === currency)?.available ?? 0;
  const canPayOut = useCanWrite('payouts.write', environment, onSignedOut);
  // A freeze is said before the form: every payout made meanwhile is refused (IKW-LIM-005).
  const limits = useLimits(environment, onSignedOut);
  const payouts = useQuery({
    queryKey: ['payouts', environment, status, heldOnly, page],
    queryFn: async () => {
      const list = await withSession(() => sika.get('/api/v1/merchant/payouts', { params: { query: { page, limit: 20, ...(status ? { status } : {}), ...(heldOnly ? { review_status: 'held' as const } : {}) } } }), onSignedOut);
      // The route also answers CSV (the export), which this request does not ask for.
      return typeof list === 'string' ? { data: [], has_more: false } : list;
    },
    // While a payout shown is on its way, its status is asked again every few seconds, so the
    // list follows it to paid or failed without a reload; a settled list is not asked again.
    refetchInterval: (query) => ((query.state.data?.data ?? []).some((p) => p.status === 'pending' || p.status === 'in_transit') ? PENDING_REFRESH_MS : false),
  });

  const review = useMutation({
    mutationFn: async (form: FormData): Promise<Draft> => {
      const amount = minorUnits(Number(form.get('amount')), currency);
      const idempotencyKey = crypto.randomUUID();
      if (sendTo === 'bank') {
        const bank_code = String(form.get('bank_code'));
        const account_number = String(form.get('account_number')).replace(/\s+/g, '');
        const quote = await sika.post('/api/v1/fees/quote', { body: { amount, currency, direction: 'payout', method: 'bank', country } });
        // The bank's name for the holder, shown before confirming; the payout then names them as the bank does.
        const holder = await sika.post('/api/v1/banks/account-holder', { body: { currency, bank_code, account_number } });
        const bank_name = banks.data?.find((b) => b.code === bank_code)?.name ?? bank_code;
        setTypedHolder('');
        return { amount, currency, destination: { type: 'bank', bank_code, bank_name, account_number, account_name: holder.account_name ?? null }, fee: quote.fee, total: quote.total, idempotencyKey };
      }
      const operator = String(form.get('operator'));
      const quote = await sika.post('/api/v1/fees/quote', { body: { amount, currency, direction: 'payout', method: 'mobile_money', country, operator } });
      return { amount, currency, destination: { type: 'mobile_money', country, operator, msisdn: String(form.get('msisdn')).trim() }, fee: quote.fee, total: quote.total, idempotencyKey };
    },
    onSuccess: (d) => {
      setError(null);
      setDraft(d);
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });
  // A second press before the first answer is not sent at all (the Idempotency-Key would make it
  // harmless, but the API answers a concurrent repeat with 409 IKW-IDM-003).
  const confirming = useRef(false);
  // In live, a number this merchant never paid asks for the user's second factor (IKW-PAY-007).
  const { guarded, form: factorForm } = useSecondFactor();
  const confirm = useMutation({
    mutationFn: (d: Draft) =>
      guarded('payouts/new-destination', (challenge_id) =>
        sika.post('/api/v1/merchant/payouts', {
          body: { amount: d.amount, currency: d.currency, destination: destinationOf(d.destination, typedHolder), ...(challenge_id ? { challenge_id } : {}) },
          // With the challenge it is another request (the refusal without one is kept for its key): a key of its own.
          headers: { 'Idempotency-Key': challenge_id ? `${d.idempotencyKey}.${challenge_id}` : d.idempotencyKey },
        }),
      ),
    onSuccess: (payout) => {
      // Null: the user canceled the second factor; the reviewed payout stays to confirm.
      if (!payout) return;
      setDraft(null);
      setCreated(payout.id);
      // The money left the balance: every page that shows it asks again.
      for (const key of ['payouts', 'balance', 'balance-summaries', 'balance-transactions']) void queries.invalidateQueries({ queryKey: [key, environment] });
    },
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setCreated(null);
    review.mutate(new FormData(e.currentTarget));
  };

  return (
    <main className="page">
      <h1>{t('nav.payouts')}</h1>
      <p>
        <Link to="payoutBatches">{t('payouts.batches')}</Link>
      </p>
      <section aria-labelledby="new-payout">
        <h2 id="new-payout">{t('payouts.new')}</h2>
        <PayoutFreezeNotice limits={limits.data} linked />
        <ErrorMessage text={error} />
        {factorForm}
        {created && (
          <p className="panel" role="status">
            {t('payouts.created')}{' '}
            <Link to="payout" id={created}>
              <code>{created}</code>
            </Link>
          </p>
        )}
        {canPayOut === false ? (
          <p className="notice">{t('payouts.cannot')}</p>
        ) : draft ? (
          <div className="panel" role="group" aria-labelledby="review-title">
            <h3 id="review-title">{t('payouts.review')}</h3>
            <dl className="facts">
              <dt>{t('payouts.recipient')}</dt>
              <dd>{draft.destination.type === 'bank' ? `${draft.destination.bank_name} ••${draft.destination.account_number.slice(-4)}` : `${draft.destination.msisdn} (${names.operator(draft.destination.operator)})`}</dd>
              {draft.destination.type === 'bank' && draft.destination.account_name !== null && (
                <>
                  <dt>{t('payouts.holder')}</dt>
                  <dd>
                    <strong>{draft.destination.account_name}</strong>
                    <span className="help">{t('payouts.holderFromBank')}</span>
                  </dd>
                </>
              )}
              <dt>{t('payouts.amount')}</dt>
              <dd>{formatAmount(language, draft.amount, draft.currency)}</dd>
              <dt>{t('payouts.fee')}</dt>
              <dd>{formatAmount(language, draft.fee, draft.currency)}</dd>
              <dt>{t('payouts.total')}</dt>
              <dd>
                <strong>{formatAmount(language, draft.total, draft.currency)}</strong>
              </dd>
            </dl>
            {draft.destination.type === 'bank' && draft.destination.account_name === null && (
              <label>
                {t('payouts.holder')}
                <input value={typedHolder} onChange={(e) => setTypedHolder(e.target.value)} required aria-describedby="holder-unknown" />
                <span id="holder-unknown" className="help">
                  {t('payouts.holderUnknown')}
                </span>
              </label>
            )}
            <div className="actions">
              <button
                type="button"
                disabled={confirm.isPending || (draft.destination.type === 'bank' && draft.destination.account_name === null && typedHolder.trim() === '')}
                onClick={() => {
                  if (confirming.current) return;
                  confirming.current = true;
                  confirm.mutate(draft, { onSettled: () => void (confirming.current = false) });
                }}
              >
                {t('payouts.confirm')}
              </button>
              <button type="button" className="secondary" onClick={() => setDraft(null)}>
                {t('action.cancel')}
              </button>
            </div>
          </div>
        ) : (
          <form className="inline-form" onSubmit={submit} aria-label={t('payouts.new')}>
            <fieldset className="choice">
              <legend>{t('payouts.sendTo')}</legend>
              {(['mobile_money', 'bank'] as const).map((kind) => (
                <label key={kind}>
                  <input type="radio" name="send_to" value={kind} checked={sendTo === kind} onChange={() => setSendTo(kind)} /> {t(kind === 'bank' ? 'payouts.toBank' : 'payouts.toWallet')}
                </label>
              ))}
            </fieldset>
            {sendTo === 'mobile_money' && saved.length > 0 && (
              <label>
                {t('payouts.saved')}
                <select value={prefill?.id ?? ''} onChange={(e) => choose(e.target.value)}>
                  <option value="">{t('payouts.savedNone')}</option>
                  {saved.map((d) => (
                    <option key={d.id} value={d.id}>
                      {destinationLabel(d)}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <CountrySelect label={t('payouts.country')} name="country" countries={countries} value={country} onChange={setCountry} />
            {sendTo === 'bank' ? (
              <BankFields banks={banks.data ?? []} />
            ) : (
              <WalletFields
                labels={{ operator: t('payouts.operator'), msisdn: t('payouts.msisdn') }}
                operators={operators}
                callingCode={chosen?.calling_code}
                {...(prefill ? { filled: { key: prefill.id, operator: prefill.destination?.operator, msisdn: prefill.destination?.msisdn } } : {})}
              />
            )}
            <label>
              {t('payouts.amount')} ({currency.toUpperCase()})
              <input name="amount" type="number" inputMode="decimal" min="0" step="any" required aria-describedby="payout-available" />
            </label>
            <p id="payout-available" className="help">
              {t('payouts.available', { amount: formatAmount(language, available, currency) })}
            </p>
            <button type="submit" disabled={review.isPending || (sendTo === 'bank' && (banks.data ?? []).length === 0)}>
              {t('payouts.reviewAction')}
            </button>
          </form>
        )}
      </section>

      <section aria-labelledby="payout-list">
        <h2 id="payout-list">{t('payouts.list')}</h2>
        <label className="inline">
          {t('payouts.status')}
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status | '');
              setPage(1);
            }}
          >
            <option value="">{t('payouts.status.all')}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`payouts.status.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={heldOnly}
            onChange={(e) => {
              setHeldOnly(e.target.checked);
              setPage(1);
            }}
          />
          {held('held.only')}
        </label>
        <CsvExport
          name={`payouts-${environment}-${utcDay(Date.now())}.csv`}
          onSignedOut={onSignedOut}
          csv={(timeZone) =>
            sika.get('/api/v1/merchant/payouts', { params: { query: { ...(status ? { status } : {}), ...(heldOnly ? { review_status: 'held' as const } : {}), time_zone: timeZone } }, headers: { Accept: 'text/csv' }, parseAs: 'text' })
          }
        />
        <QueryView query={payouts} isEmpty={(d) => !d.data?.length} empty={heldOnly ? held('held.none') : t('payouts.none')}>
          {(list) => (
            <>
              <Scrollable labelledBy="payout-list" twoLine>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('payouts.recipient')}</th>
                      <th scope="col">{t('payouts.amount')}</th>
                      <th scope="col">{t('payouts.fee')}</th>
                      <th scope="col">{t('payouts.status')}</th>
                      <th scope="col">{t('payouts.created.at')}</th>
                      <th scope="col">{t('object.id')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {(list.data ?? []).map((p) => {
                      const destination = p.destination as { operator?: string; msisdn?: string; account_number?: string; account_name?: string };
                      const recipient = destination.account_number ? [destination.account_name, `••${destination.account_number.slice(-4)}`] : [names.operator(destination.operator), destination.msisdn];
                      return (
                        <tr key={p.id}>
                          <RowName to="payout" id={p.id} name={recipient.filter(Boolean).join(' · ') || t('payouts.id')} />
                          <td className="amount" data-card="amount">
                            {formatAmount(language, p.amount, p.currency)}
                          </td>
                          <td className="amount">{p.fee == null ? '—' : formatAmount(language, p.fee, p.currency)}</td>
                          <StatusCell
                            status={p.status}
                            word={t(`payouts.status.${p.status}`)}
                            extra={
                              <>
                                {p.delay_state === 'delayed' && (
                                  <>
                                    {' '}
                                    <Badge status="delayed">{t('payouts.delayed')}</Badge>
                                  </>
                                )}
                                {p.review_status === 'held' && (
                                  <>
                                    {' '}
                                    <Badge status="pending">{held('held.badge')}</Badge>
                                  </>
                                )}
                              </>
                            }
                            failure={p.status === 'failed' && { subject: 'payout', code: p.failure_code, message: p.failure_message }}
                          />
                          <td data-card="date">{formatWhen(language, p.created)}</td>
                          <td>
                            <CopyableId id={p.id} />
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </Scrollable>
              <nav className="actions" aria-label={t('payouts.pages')}>
                <button type="button" className="secondary" disabled={page === 1} onClick={() => setPage(page - 1)}>
                  {t('action.previous')}
                </button>
                <button type="button" className="secondary" disabled={!list.has_more} onClick={() => setPage(page + 1)}>
                  {t('action.next')}
                </button>
              </nav>
            </>
          )}
        </QueryView>
      </section>
    </main>
  );
}

/** The API's destination of a reviewed payout: a bank account named as its bank names the holder, or as the user typed it where the bank tells no names. */
function destinationOf(d: DraftDestination, typedHolder: string) {
  if (d.type === 'mobile_money') return d;
  return { type: 'bank' as const, bank_code: d.bank_code, account_number: d.account_number, account_name: d.account_name ?? typedHolder.trim() };
}
