import { useContext } from 'react';
import { CopyableId, QueryView, Scrollable } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, LOCALES, useMessages } from '../../shell/i18n.js';
import { PayoutFreezeNotice, useLimits, type Limits as LimitsObject } from '../../shell/limits.js';
import type { PageProps } from '../../shell/props.js';
import { limitMessages } from './limits.messages.js';

/** How many held reserves the API lists (GET /api/v1/limits, `reservesHeld.soonest`): when it lists that many, there may be more. */
const RESERVES_LISTED = 100;

/** Whether the risk team set nothing here and nothing is held: the page then says so in one sentence. */
const nothingSet = (l: LimitsObject) => Object.keys(l.transactionMaximums ?? {}).length === 0 && Object.keys(l.dailyPayoutCaps ?? {}).length === 0 && !l.payoutFreeze && !l.rollingReserve && (l.reservesHeld?.soonest ?? []).length === 0;

/**
 * The limits and holds Sika's risk team set on the merchant in the environment shown
 * (GET /api/v1/limits, docs/limits.md): the payout freeze and its reason, the per-transaction
 * maximums and daily payout caps per currency with what today's payouts already count against the
 * cap, and the rolling reserve with the reserves held now and their release dates.
 */
export function Limits({ environment, onSignedOut }: PageProps) {
  const t = useMessages(limitMessages);
  const limits = useLimits(environment, onSignedOut);
  return (
    <main className="page limits">
      <h1>{t('title')}</h1>
      <p className="help">{t('intro')}</p>
      <QueryView query={limits}>
        {(l) =>
          nothingSet(l) ? (
            <p className="panel">{t('none')}</p>
          ) : (
            <>
              <section aria-labelledby="limits-payouts">
                <h2 id="limits-payouts">{t('payouts')}</h2>
                {l.payoutFreeze ? <PayoutFreezeNotice limits={l} /> : <p>{t('payouts.open')}</p>}
              </section>
              <Amounts limits={l} />
              <Reserve limits={l} />
            </>
          )
        }
      </QueryView>
    </main>
  );
}

/** The per-transaction maximums and daily payout caps, one row per currency either names. */
function Amounts({ limits }: { limits: LimitsObject }) {
  const t = useMessages(limitMessages);
  const { language } = useContext(LanguageContext);
  const maximums = limits.transactionMaximums ?? {};
  const caps = limits.dailyPayoutCaps ?? {};
  const today = limits.payoutsToday ?? {};
  const currencies = [...new Set([...Object.keys(maximums), ...Object.keys(caps)])].sort();
  const amount = (minor: number | undefined, currency: string) => (minor === undefined ? t('noLimit') : formatAmount(language, minor, currency));
  return (
    <section aria-labelledby="limits-amounts">
      <h2 id="limits-amounts">{t('amounts')}</h2>
      {currencies.length === 0 ? (
        <p>{t('amounts.none')}</p>
      ) : (
        <>
          <Scrollable labelledBy="limits-amounts">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('currency')}</th>
                  <th scope="col">{t('maximum')}</th>
                  <th scope="col">{t('cap')}</th>
                  <th scope="col">{t('today')}</th>
                  <th scope="col">{t('left')}</th>
                </tr>
              </thead>
              <tbody>
                {currencies.map((c) => {
                  const cap = caps[c];
                  const sent = today[c] ?? 0;
                  return (
                    <tr key={c}>
                      <th scope="row">{c.toUpperCase()}</th>
                      <td className="amount">{amount(maximums[c], c)}</td>
                      <td className="amount">{amount(cap, c)}</td>
                      <td className="amount">{cap === undefined ? '—' : formatAmount(language, sent, c)}</td>
                      <td className="amount">{cap === undefined ? '—' : formatAmount(language, Math.max(0, cap - sent), c)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Scrollable>
          <p className="help">{t('amounts.help')}</p>
        </>
      )}
    </section>
  );
}

/** The rolling reserve, and the reserves of past payments held now with their release dates. */
function Reserve({ limits }: { limits: LimitsObject }) {
  const t = useMessages(limitMessages);
  const { language } = useContext(LanguageContext);
  const reserve = limits.rollingReserve;
  const totals = Object.entries(limits.reservesHeld?.totals ?? {});
  const held = limits.reservesHeld?.soonest ?? [];
  const percent = (p: number) => new Intl.NumberFormat(LOCALES[language], { style: 'percent', maximumFractionDigits: 2 }).format(p / 100);
  return (
    <section aria-labelledby="limits-reserve">
      <h2 id="limits-reserve">{t('reserve')}</h2>
      <p>{reserve ? t('reserve.set', { percent: percent(reserve.percent ?? 0), days: reserve.days ?? 0 }) : t('reserve.none')}</p>
      <h3 id="limits-held">{t('held')}</h3>
      {held.length === 0 ? (
        <p>{t('held.none')}</p>
      ) : (
        <>
          <dl className="facts">
            {totals.map(([currency, total]) => (
              <div key={currency}>
                <dt>{t('held.total', { currency: currency.toUpperCase() })}</dt>
                <dd>{formatAmount(language, total, currency)}</dd>
              </div>
            ))}
          </dl>
          <Scrollable labelledBy="limits-held">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('payment')}</th>
                  <th scope="col">{t('amount')}</th>
                  <th scope="col">{t('releasedOn')}</th>
                </tr>
              </thead>
              <tbody>
                {held.map((r) => (
                  <tr key={r.paymentIntent}>
                    <th scope="row">
                      <CopyableId id={r.paymentIntent ?? ''} to="payment" />
                    </th>
                    <td className="amount">{formatAmount(language, r.amount ?? 0, r.currency ?? 'xof')}</td>
                    <td>{formatWhen(language, r.releasesAt, 'date')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
          {held.length >= RESERVES_LISTED && <p className="help">{t('held.more', { count: RESERVES_LISTED })}</p>}
        </>
      )}
    </section>
  );
}
