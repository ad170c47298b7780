import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent, type ReactNode } from 'react';
import { SikaError } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../../src/shell/Badge.js';
import { ObjectHeading, QueryView, Scrollable } from '../../../src/shell/components.js';
import { decimalsOf, formatAmount, formatWhen, LanguageContext, minorUnits, type Language } from '../../../src/shell/i18n.js';
import { Link, useOperatorAction, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import './merchants.css';
import { merchantMessages } from './merchant.messages.js';

type T = ReturnType<typeof useConsoleT<keyof typeof merchantMessages.en>>;
type Environment = 'live' | 'sandbox';
const ENVIRONMENTS: readonly Environment[] = ['live', 'sandbox'];

type MerchantPage = Awaited<ReturnType<typeof readMerchant>>;
type Limits = Awaited<ReturnType<typeof readLimits>>;

const readMerchant = (id: string) => api.get('/api/v1/operator/merchants/{id}', { params: { path: { id } } });
const readLimits = (merchantId: string, environment: Environment) => api.get('/api/v1/operator/merchants/{merchantId}/limits', { params: { path: { merchantId }, query: { environment } } });

/** Everything about the merchant lives under this key: a change asks for all of it again. */
const merchantKey = (id: string) => ['operator-merchant', id];

/** One merchant: its profile, activation, balances, limits and holds (the risk team's controls), recent payments and payouts, and audit trail. */
export function Merchant({ operator, id, onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(merchantMessages);
  const merchantId = id ?? '';
  const page = useQuery({ queryKey: merchantKey(merchantId), queryFn: () => readMerchant(merchantId) });
  if (page.isError && page.error instanceof SikaError && page.error.code === 'IKW-RES-001')
    return (
      <main className="page">
        <h1>{t('merchant.title')}</h1>
        <p role="alert">{t('merchant.notFound')}</p>
        <Link to="merchants">{t('merchant.back')}</Link>
      </main>
    );
  // Limits, holds and suspensions are the risk team's (and admins'); others read them.
  const canControl = operator.role === 'risk' || operator.role === 'admin';
  return (
    <main className="page merchant-page">
      <p>
        <Link to="merchants">{t('merchant.back')}</Link>
      </p>
      <QueryView query={page}>
        {(p) => (
          <>
            <ObjectHeading name={p.merchant?.name ?? merchantId} id={merchantId} />
            <Profile page={p} t={t} />
            <Activation page={p} t={t} canControl={canControl} canReadApplication={operator.role !== 'finance'} onSignedOut={onSignedOut} />
            <Balances page={p} t={t} />
            <LimitsSection merchantId={merchantId} t={t} canControl={canControl} onSignedOut={onSignedOut} />
            <Recent kind="payments" page={p} t={t} />
            <Recent kind="payouts" page={p} t={t} />
            <AuditTrail page={p} t={t} />
          </>
        )}
      </QueryView>
    </main>
  );
}

function useLanguage(): Language {
  return useContext(LanguageContext).language;
}

function Profile({ page, t }: { page: MerchantPage; t: T }) {
  const language = useLanguage();
  const live = page.liveActivation;
  return (
    <section aria-labelledby="merchant-profile">
      <h2 id="merchant-profile">{t('merchant.profile')}</h2>
      <dl className="facts">
        <dt>{t('merchant.email')}</dt>
        <dd>{page.merchant?.email ?? '—'}</dd>
        <dt>{t('merchant.created')}</dt>
        <dd>{formatWhen(language, page.merchant?.created)}</dd>
        <dt>{t('merchant.live')}</dt>
        <dd>
          {live?.status && <Badge status={live.status}>{t(`merchant.live.${live.status}`)}</Badge>}
          {live?.suspended && <span className="help">{t('merchant.suspendedNote')}</span>}
        </dd>
        <dt>{t('merchant.activatedAt')}</dt>
        <dd>{formatWhen(language, live?.activatedAt)}</dd>
        <dt>{t('merchant.deactivatedAt')}</dt>
        <dd>{formatWhen(language, live?.deactivatedAt)}</dd>
      </dl>
    </section>
  );
}

/** A refusal, in the API's words, where the change was asked. */
function Refusal({ text }: { text: string | null }) {
  return text ? (
    <p className="error" role="alert">
      {text}
    </p>
  ) : null;
}

/** What a control said it did, for a screen reader too. */
function Done({ text }: { text: string | null }) {
  return (
    <p role="status" className="done">
      {text ?? ''}
    </p>
  );
}

function Activation({ page, t, canControl, canReadApplication, onSignedOut }: { page: MerchantPage; t: T; canControl: boolean; canReadApplication: boolean; onSignedOut: () => void }) {
  const merchantId = page.merchant?.id ?? '';
  const status = page.merchant?.applicationStatus ?? 'not_submitted';
  const { action, error } = useOperatorAction(onSignedOut, [merchantKey(merchantId), ['operator-merchants']]);
  const [done, setDone] = useState<string | null>(null);
  const suspend = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const reason = String(new FormData(form).get('reason') ?? '');
    setDone(null);
    action.mutate(() => api.post('/api/v1/operator/merchants/{merchantId}/suspend', { params: { path: { merchantId } }, body: { reason } }), {
      onSuccess: () => {
        form.reset();
        setDone(t('merchant.suspended'));
      },
    });
  };
  const reinstate = () => {
    setDone(null);
    action.mutate(() => api.post('/api/v1/operator/merchants/{merchantId}/reinstate', { params: { path: { merchantId } } }), { onSuccess: () => setDone(t('merchant.reinstated')) });
  };
  return (
    <section aria-labelledby="merchant-activation">
      <h2 id="merchant-activation">{t('merchant.activation')}</h2>
      <dl className="facts">
        <dt>{t('merchant.applicationStatus')}</dt>
        <dd>
          <Badge status={status}>{t(`merchant.application.${status}`)}</Badge>
        </dd>
      </dl>
      {canReadApplication && status !== 'not_submitted' && (
        <p>
          <Link to="application" id={merchantId}>
            {t('merchant.openApplication')}
          </Link>
        </p>
      )}
      {canControl && (
        <div className="panel">
          <Refusal text={error} />
          {status === 'suspended' ? (
            <button type="button" onClick={reinstate} disabled={action.isPending}>
              {t('merchant.reinstate')}
            </button>
          ) : status === 'active' ? (
            <form className="inline-form" onSubmit={suspend} aria-label={t('merchant.suspend')}>
              <label className="wide">
                {t('merchant.suspendReason')}
                <textarea name="reason" required maxLength={1000} rows={2} />
              </label>
              <button type="submit" className="danger" disabled={action.isPending}>
                {t('merchant.suspend')}
              </button>
            </form>
          ) : (
            <p className="help">{t('merchant.suspendOnlyActive')}</p>
          )}
          <Done text={done} />
        </div>
      )}
    </section>
  );
}

function Balances({ page, t }: { page: MerchantPage; t: T }) {
  const language = useLanguage();
  const rows = ENVIRONMENTS.flatMap((environment) => (page.balances?.[environment] ?? []).map((b) => ({ environment, ...b })));
  return (
    <section aria-labelledby="merchant-balances">
      <h2 id="merchant-balances">{t('merchant.balances')}</h2>
      {rows.length === 0 ? (
        <p>{t('merchant.noBalance')}</p>
      ) : (
        <Scrollable labelledBy="merchant-balances">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('merchant.environment')}</th>
                <th scope="col">{t('merchant.currency')}</th>
                <th scope="col">{t('balance.available')}</th>
                <th scope="col">{t('balance.pending')}</th>
                <th scope="col">{t('balance.reserved')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => {
                const currency = b.currency ?? 'xof';
                return (
                  <tr key={`${b.environment}:${currency}`}>
                    <th scope="row">{t(`env.${b.environment}`)}</th>
                    <td>{currency.toUpperCase()}</td>
                    <td className="amount">{formatAmount(language, b.available ?? 0, currency)}</td>
                    <td className="amount">{formatAmount(language, b.pending ?? 0, currency)}</td>
                    <td className="amount">{formatAmount(language, b.reserved ?? 0, currency)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Scrollable>
      )}
    </section>
  );
}

/** Amounts per currency in words: `XOF 500 000 · GHS 100,00`, or none. */
function amountsText(language: Language, amounts: Record<string, number> | undefined, none: string): string {
  const entries = Object.entries(amounts ?? {});
  return entries.length === 0 ? none : entries.map(([currency, amount]) => formatAmount(language, amount, currency)).join(' · ');
}

/** A currency code as typed, when it is one (three letters): what `decimalsOf` may be asked about. */
const currencyOf = (typed: string): string | null => (/^[a-z]{3}$/i.test(typed.trim()) ? typed.trim().toLowerCase() : null);

function LimitsSection({ merchantId, t, canControl, onSignedOut }: { merchantId: string; t: T; canControl: boolean; onSignedOut: () => void }) {
  const language = useLanguage();
  const [environment, setEnvironment] = useState<Environment>('live');
  const limits = useQuery({ queryKey: [...merchantKey(merchantId), 'limits', environment], queryFn: () => readLimits(merchantId, environment) });
  return (
    <section aria-labelledby="merchant-limits">
      <h2 id="merchant-limits">{t('merchant.limits')}</h2>
      <label className="inline">
        {t('merchant.limitsIn')}
        <select value={environment} onChange={(e) => setEnvironment(e.target.value as Environment)}>
          {ENVIRONMENTS.map((env) => (
            <option key={env} value={env}>
              {t(`env.${env}`)}
            </option>
          ))}
        </select>
      </label>
      <QueryView query={limits}>
        {(l) => (
          <>
            <dl className="facts limits">
              <dt>{t('merchant.maximum')}</dt>
              <dd>{amountsText(language, l.transactionMaximums, t('merchant.none'))}</dd>
              <dt>{t('merchant.dailyCap')}</dt>
              <dd>{amountsText(language, l.dailyPayoutCaps, t('merchant.none'))}</dd>
              <dt>{t('merchant.payouts')}</dt>
              <dd>
                {l.payoutFreeze ? (
                  <>
                    <Badge status="suspended">{t('merchant.frozen')}</Badge> {t('merchant.frozenSince', { when: formatWhen(language, l.payoutFreeze.since), reason: l.payoutFreeze.reason ?? '' })}
                  </>
                ) : (
                  t('merchant.notFrozen')
                )}
              </dd>
              <dt>{t('merchant.reserve')}</dt>
              <dd>{l.rollingReserve ? t('merchant.reserveWords', { percent: l.rollingReserve.percent?.toLocaleString(language) ?? '', days: l.rollingReserve.days ?? '' }) : t('merchant.none')}</dd>
              <dt>{t('merchant.held')}</dt>
              <dd>{amountsText(language, l.reservesHeld?.totals, t('merchant.nothingHeld'))}</dd>
              <dt>{t('merchant.updated')}</dt>
              <dd>{l.updated == null ? t('merchant.never') : formatWhen(language, l.updated)}</dd>
            </dl>
            <ReservesHeld limits={l} t={t} />
            {canControl ? <RiskControls merchantId={merchantId} environment={environment} limits={l} t={t} onSignedOut={onSignedOut} /> : <p className="notice">{t('merchant.readOnly')}</p>}
          </>
        )}
      </QueryView>
    </section>
  );
}

function ReservesHeld({ limits, t }: { limits: Limits; t: T }) {
  const language = useLanguage();
  const soonest = limits.reservesHeld?.soonest ?? [];
  if (soonest.length === 0) return null;
  return (
    <>
      <h3 id="merchant-reserves">{t('merchant.heldList')}</h3>
      <Scrollable labelledBy="merchant-reserves">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('merchant.payment')}</th>
              <th scope="col">{t('merchant.amount')}</th>
              <th scope="col">{t('merchant.releasesAt')}</th>
            </tr>
          </thead>
          <tbody>
            {soonest.map((r) => (
              <tr key={r.paymentIntent}>
                <th scope="row">
                  <code>{r.paymentIntent}</code>
                </th>
                <td className="amount">{formatAmount(language, r.amount ?? 0, r.currency ?? 'xof')}</td>
                <td>{formatWhen(language, r.releasesAt, 'date')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scrollable>
    </>
  );
}

/** One of the risk team's controls, in its own panel under its heading. */
function ControlPanel({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <div className="panel" role="group" aria-labelledby={id}>
      <h4 id={id}>{title}</h4>
      {children}
    </div>
  );
}

/** An operator's change with its refusal and success said beside it. */
function useControl(merchantId: string, onSignedOut: () => void, t: T) {
  const { action, error } = useOperatorAction(onSignedOut, [merchantKey(merchantId)]);
  const [done, setDone] = useState(false);
  const run = (work: () => Promise<unknown>, after?: () => void) => {
    setDone(false);
    action.mutate(work, {
      onSuccess: () => {
        after?.();
        setDone(true);
      },
    });
  };
  return { run, busy: action.isPending, error, done: done ? t('merchant.saved') : null };
}

/** The risk team's controls of one environment: a currency's limits, the payout freeze, the rolling reserve. */
function RiskControls({ merchantId, environment, limits, t, onSignedOut }: { merchantId: string; environment: Environment; limits: Limits; t: T; onSignedOut: () => void }) {
  const path = { merchantId };
  const amounts = useControl(merchantId, onSignedOut, t);
  const freeze = useControl(merchantId, onSignedOut, t);
  const reserve = useControl(merchantId, onSignedOut, t);
  const [typedCurrency, setTypedCurrency] = useState('XOF');
  const currency = currencyOf(typedCurrency);
  // The amounts the form starts from: the currency's limits now, in its units.
  const inUnits = (map: Record<string, number> | undefined) => {
    const minor = currency === null ? undefined : map?.[currency];
    return minor === undefined || currency === null ? '' : String(minor / 10 ** decimalsOf(currency));
  };

  const saveAmounts = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (currency === null) return;
    const form = new FormData(e.currentTarget);
    // The PUT replaces both maps: the other currencies' limits are sent as they are.
    const withCurrency = (map: Record<string, number> | undefined, typed: string) => {
      const { [currency]: _, ...others } = map ?? {};
      return typed.trim() === '' ? others : { ...others, [currency]: minorUnits(Number(typed), currency) };
    };
    const body = {
      transactionMaximums: withCurrency(limits.transactionMaximums, String(form.get('maximum') ?? '')),
      dailyPayoutCaps: withCurrency(limits.dailyPayoutCaps, String(form.get('dailyCap') ?? '')),
      environment,
    };
    amounts.run(() => api.put('/api/v1/operator/merchants/{merchantId}/limits', { params: { path }, body }));
  };
  const freezePayouts = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const reason = String(new FormData(form).get('reason') ?? '');
    freeze.run(
      () => api.post('/api/v1/operator/merchants/{merchantId}/limits/payout-freeze', { params: { path }, body: { reason, environment } }),
      () => form.reset(),
    );
  };
  const lift = () => freeze.run(() => api.post('/api/v1/operator/merchants/{merchantId}/limits/payout-freeze/lift', { params: { path }, body: { environment } }));
  const setReserve = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const body = { percent: Number(form.get('percent')), days: Number(form.get('days')), environment };
    reserve.run(() => api.post('/api/v1/operator/merchants/{merchantId}/limits/rolling-reserve', { params: { path }, body }));
  };
  const removeReserve = () => reserve.run(() => api.delete('/api/v1/operator/merchants/{merchantId}/limits/rolling-reserve', { params: { path, query: { environment } } }));

  return (
    <div className="risk-controls" role="group" aria-labelledby="risk-controls">
      <h3 id="risk-controls">{t('merchant.controls')}</h3>
      <ControlPanel title={t('merchant.amounts')} id="control-amounts">
        <Refusal text={amounts.error} />
        <form className="inline-form" onSubmit={saveAmounts}>
          <label>
            {t('merchant.currency')}
            <input name="currency" value={typedCurrency} onChange={(e) => setTypedCurrency(e.target.value.toUpperCase())} required pattern="[A-Za-z]{3}" maxLength={3} size={4} autoComplete="off" />
          </label>
          {/* Keyed by the currency and the limits' last change: the amounts start from what is set now. */}
          <label key={`max:${currency}:${limits.updated}`}>
            {t('merchant.maximum')}
            <input name="maximum" type="number" inputMode="decimal" min="0" step="any" defaultValue={inUnits(limits.transactionMaximums)} aria-describedby="amounts-help" />
          </label>
          <label key={`cap:${currency}:${limits.updated}`}>
            {t('merchant.dailyCap')}
            <input name="dailyCap" type="number" inputMode="decimal" min="0" step="any" defaultValue={inUnits(limits.dailyPayoutCaps)} aria-describedby="amounts-help" />
          </label>
          <button type="submit" disabled={amounts.busy || currency === null}>
            {t('merchant.saveAmounts')}
          </button>
        </form>
        <p id="amounts-help" className="help">
          {t('merchant.amountsHelp')}
        </p>
        <Done text={amounts.done} />
      </ControlPanel>
      <ControlPanel title={t('merchant.payouts')} id="control-freeze">
        <Refusal text={freeze.error} />
        {limits.payoutFreeze ? (
          <button type="button" onClick={lift} disabled={freeze.busy}>
            {t('merchant.lift')}
          </button>
        ) : (
          <form className="inline-form" onSubmit={freezePayouts}>
            <label className="wide">
              {t('merchant.freezeReason')}
              <textarea name="reason" required maxLength={500} rows={2} />
            </label>
            <button type="submit" className="danger" disabled={freeze.busy}>
              {t('merchant.freeze')}
            </button>
          </form>
        )}
        <Done text={freeze.done} />
      </ControlPanel>
      <ControlPanel title={t('merchant.reserve')} id="control-reserve">
        <Refusal text={reserve.error} />
        <form className="inline-form" onSubmit={setReserve}>
          <label key={`percent:${limits.updated}`}>
            {t('merchant.percent')}
            <input name="percent" type="number" inputMode="decimal" min="0.01" max="100" step="0.01" required defaultValue={limits.rollingReserve?.percent ?? ''} />
          </label>
          <label key={`days:${limits.updated}`}>
            {t('merchant.days')}
            <input name="days" type="number" inputMode="numeric" min="1" max="365" step="1" required defaultValue={limits.rollingReserve?.days ?? ''} />
          </label>
          <button type="submit" disabled={reserve.busy}>
            {t('merchant.setReserve')}
          </button>
          {limits.rollingReserve && (
            <button type="button" className="secondary" onClick={removeReserve} disabled={reserve.busy}>
              {t('merchant.removeReserve')}
            </button>
          )}
        </form>
        <Done text={reserve.done} />
      </ControlPanel>
    </div>
  );
}

/** The newest payments or payouts of each environment, in one list: what the merchant's page shows of its money. */
function Recent({ kind, page, t }: { kind: 'payments' | 'payouts'; page: MerchantPage; t: T }) {
  const language = useLanguage();
  const payments = kind === 'payments';
  const shown = payments ? page.recentPayments : page.recentPayouts;
  const rows = ENVIRONMENTS.flatMap((environment) => ((shown?.[environment] ?? []) as { id: string; amount: number; currency: string; status: string; created: number }[]).map((p) => ({ environment, p })));
  const heading = `merchant-${kind}`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading}>{t(payments ? 'merchant.recentPayments' : 'merchant.recentPayouts')}</h2>
      {rows.length === 0 ? (
        <p>{t(payments ? 'merchant.noPayments' : 'merchant.noPayouts')}</p>
      ) : (
        <Scrollable labelledBy={heading}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t(payments ? 'merchant.payment' : 'payouts.id')}</th>
                <th scope="col">{t('merchant.environment')}</th>
                <th scope="col">{t('merchant.amount')}</th>
                <th scope="col">{t('merchant.status')}</th>
                <th scope="col">{t('merchant.created')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ environment, p }) => (
                <tr key={p.id}>
                  <th scope="row">
                    <code>{p.id}</code>
                  </th>
                  <td>{t(`env.${environment}`)}</td>
                  <td className="amount">{formatAmount(language, p.amount, p.currency)}</td>
                  <td>
                    <Badge status={p.status}>{t((payments ? `status.${p.status}` : `payouts.status.${p.status}`) as Parameters<T>[0])}</Badge>
                  </td>
                  <td>{formatWhen(language, p.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      )}
    </section>
  );
}

function AuditTrail({ page, t }: { page: MerchantPage; t: T }) {
  const language = useLanguage();
  const entries = page.auditTrail ?? [];
  return (
    <section aria-labelledby="merchant-audit">
      <h2 id="merchant-audit">{t('merchant.audit')}</h2>
      {entries.length === 0 ? (
        <p>{t('merchant.noAudit')}</p>
      ) : (
        <Scrollable labelledBy="merchant-audit">
          <table className="audit-trail">
            <thead>
              <tr>
                <th scope="col">{t('merchant.when')}</th>
                <th scope="col">{t('merchant.event')}</th>
                <th scope="col">{t('merchant.actor')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.position}>
                  <th scope="row">{formatWhen(language, e.occurredAt, 'second')}</th>
                  <td>
                    <code>{e.type}</code>
                  </td>
                  <td>
                    <code>{e.actor ?? '—'}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      )}
    </section>
  );
}
