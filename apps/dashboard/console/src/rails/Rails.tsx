import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../../src/shell/Badge.js';
import { CopyButton, QueryView, Scrollable } from '../../../src/shell/components.js';
import { countryName } from '../../../src/shell/countries.js';
import { formatAmount, formatWhen, LanguageContext, LOCALES, type Language } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { ENVIRONMENTS, railName, type Environment } from './railWords.js';
import { EnvironmentSelect } from './EnvironmentSelect.js';
import './rails.css';
import { railMessages } from './rails.messages.js';

type Health = Answer<'get', '/api/v1/operator/rails'>;
type HealthLine = Health['lines'][number];
type Measure = NonNullable<HealthLine['lastHour']>;
type Availability = 'available' | 'degraded' | 'unavailable';

type DecisionsQuery = { environment: Environment; passed_over_only: boolean; limit: number };
const recentDecisions = (query: DecisionsQuery) => api.get('/api/v1/operator/rails/decisions', { params: { query } });

/** The reasons the router gives for passing a rail over (PassedOverRail in packages/connectors/port.ts). */
const REASONS = ['declared_unavailable', 'set_aside', 'rejected', 'float_short'] as const;
type Reason = (typeof REASONS)[number];
const isKnownReason = (why: string): why is Reason => (REASONS as readonly string[]).includes(why);

/** How many decisions the page shows: the newest, as an operator scanning for detours reads them. */
const DECISIONS_SHOWN = 50;

/** A share (0 to 1) as a whole percentage in the language's way (33 %, 33%). */
const percent = (language: Language, share: number) => new Intl.NumberFormat(LOCALES[language], { style: 'percent', maximumFractionDigits: 0 }).format(share);

/** `orange_money` → Orange Money: the catalog's names need a merchant's credential, not an operator's. */
const operatorName = (id: string) => id.replaceAll('_', ' ').replace(/\b\w/g, (c) => c.toUpperCase());

/** An open page keeps up with the rails: what they say of themselves now, and the last hour's figures. */
const REFRESH_MS = 60_000;

/** Each rail's measured health in live and in sandbox, the router's recent decisions, then the live attempts left for review (docs/operator.md, "Rails"). */
export function Rails(_: ConsolePageProps) {
  const t = useConsoleT(railMessages);
  return (
    <main className="page rail-health">
      <h1>{t('rails.title')}</h1>
      <p className="help">{t('rails.intro')}</p>
      {ENVIRONMENTS.map((environment) => (
        <EnvironmentHealth key={environment} environment={environment} />
      ))}
      <RecentDecisions />
      <Review />
    </main>
  );
}

function EnvironmentHealth({ environment }: { environment: Environment }) {
  const t = useConsoleT(railMessages);
  const health = useQuery({ queryKey: ['operator-rails', environment], queryFn: () => api.get('/api/v1/operator/rails', { params: { query: { environment } } }), refetchInterval: REFRESH_MS });
  const heading = `rails-${environment}`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading}>{t(`environment.${environment}`)}</h2>
      <QueryView query={health} isEmpty={(h) => railsOf(h).length === 0} empty={t('rails.none')}>
        {(h) => railsOf(h).map((rail) => <RailTable key={rail} id={`${heading}-${rail}`} rail={rail} lines={h.lines.filter((l) => l.rail === rail)} />)}
      </QueryView>
    </section>
  );
}

/** The rails configured, in the order they are asked, then any other that carried an attempt (the sandbox's, unrecorded live ones). */
const railsOf = (h: Health): string[] => [...new Set([...h.rails, ...h.lines.map((l) => l.rail ?? '')])].filter(Boolean);

function RailTable({ id, rail, lines }: { id: string; rail: string; lines: HealthLine[] }) {
  const t = useConsoleT(railMessages);
  const { language } = useContext(LanguageContext);
  return (
    <section aria-labelledby={id} className="rail">
      <h3 id={id}>{railName(t, rail)}</h3>
      {lines.length === 0 ? (
        <p>{t('rails.quiet')}</p>
      ) : (
        <Scrollable labelledBy={id}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('rails.direction')}</th>
                <th scope="col">{t('rails.country')}</th>
                <th scope="col">{t('rails.operator')}</th>
                <th scope="col">{t('rails.currency')}</th>
                <th scope="col">{t('rails.availability')}</th>
                <th scope="col">{t('rails.router')}</th>
                <th scope="col">{t('rails.lastHour')}</th>
                <th scope="col">{t('rails.lastDay')}</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l) => (
                <tr key={`${l.direction}:${l.kind}:${l.country}:${l.operator}:${l.currency}`}>
                  <th scope="row">{t(`rails.direction.${l.direction ?? 'collect'}`)}</th>
                  <td>{l.country ? countryName(language, l.country) : '—'}</td>
                  <td>{l.kind === 'card' ? t('rails.cards') : l.kind === 'bank' ? t('rails.bank', { code: l.operator ?? '' }) : operatorName(l.operator ?? '')}</td>
                  <td>{(l.currency ?? '').toUpperCase()}</td>
                  <td>
                    <AvailabilityBadge availability={l.availability ?? null} />
                  </td>
                  <td>
                    <BreakerBadge breaker={l.breaker ?? null} />
                  </td>
                  <MeasureCell measure={l.lastHour} />
                  <MeasureCell measure={l.lastDay} />
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      )}
    </section>
  );
}

function AvailabilityBadge({ availability }: { availability: Availability | null }) {
  const t = useConsoleT(railMessages);
  if (availability === null) return <Badge status="unknown">{t('availability.unknown')}</Badge>;
  // The badges' tones are the statuses': a closed rail reads as a failure.
  return <Badge status={availability === 'unavailable' ? 'failed' : availability}>{t(`availability.${availability}`)}</Badge>;
}

/** What the router does with the rail for this subject, from its measured health (docs/connectors.md, "Health"). */
function BreakerBadge({ breaker }: { breaker: HealthLine['breaker'] | null }) {
  const t = useConsoleT(railMessages);
  const { language } = useContext(LanguageContext);
  if (!breaker) return <>{t('breaker.none')}</>;
  if (breaker.state === 'open') return <Badge status="failed">{t('breaker.open', { until: formatWhen(language, breaker.until) })}</Badge>;
  if (breaker.state === 'half_open') return <Badge status="degraded">{t(breaker.probe_in_flight ? 'breaker.probe' : 'breaker.half_open')}</Badge>;
  return <Badge status="available">{t('breaker.closed')}</Badge>;
}

/** A window's success rate, then its counts. */
function MeasureCell({ measure }: { measure: Measure | undefined }) {
  const t = useConsoleT(railMessages);
  const { language } = useContext(LanguageContext);
  const m = { attempts: 0, succeeded: 0, failed: 0, railFaults: 0, pending: 0, successRate: null, ...measure };
  return (
    <td className="wrap measure">
      <strong>{m.successRate === null ? t('measure.noRate') : t('measure.rate', { rate: percent(language, m.successRate) })}</strong>
      <span className="row-detail">{t('measure.counts', { attempts: m.attempts, succeeded: m.succeeded, failed: m.failed, railFaults: m.railFaults, pending: m.pending })}</span>
    </td>
  );
}

/** The router's newest decisions of an environment, every one or only its detours, each with what it passed over and why in words. */
function RecentDecisions() {
  const t = useConsoleT(railMessages);
  const { language } = useContext(LanguageContext);
  const [environment, setEnvironment] = useState<Environment>('live');
  const [detoursOnly, setDetoursOnly] = useState(false);
  const decisions = useQuery({
    queryKey: ['operator-rails-decisions', environment, detoursOnly],
    queryFn: () => recentDecisions({ environment, passed_over_only: detoursOnly, limit: DECISIONS_SHOWN }),
    refetchInterval: REFRESH_MS,
  });
  const whyOf = (why: string) => (isKnownReason(why) ? t(`why.${why}`) : t('why.other', { why }));
  return (
    <section aria-labelledby="rails-decisions">
      <h2 id="rails-decisions">{t('decisions.title')}</h2>
      <p className="help">{t('decisions.intro')}</p>
      <form className="inline-form" aria-labelledby="rails-decisions" onSubmit={(e) => e.preventDefault()}>
        <EnvironmentSelect label={t('decisions.environment')} value={environment} onChange={setEnvironment} nameOf={(env) => t(`environment.${env}`)} />
        <label className="check">
          <input type="checkbox" checked={detoursOnly} onChange={(e) => setDetoursOnly(e.target.checked)} />
          {t('decisions.detoursOnly')}
        </label>
      </form>
      <QueryView query={decisions} isEmpty={(d) => d.data.length === 0} empty={t(detoursOnly ? 'decisions.noDetour' : 'decisions.none')}>
        {(d) => (
          <Scrollable labelledBy="rails-decisions">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('decisions.at')}</th>
                  <th scope="col">{t('decisions.direction')}</th>
                  <th scope="col">{t('decisions.subject')}</th>
                  <th scope="col">{t('decisions.rail')}</th>
                  <th scope="col">{t('decisions.passedOver')}</th>
                  <th scope="col">{t('decisions.merchant')}</th>
                  <th scope="col">{t('decisions.object')}</th>
                  <th scope="col">{t('decisions.outcome')}</th>
                </tr>
              </thead>
              <tbody>
                {d.data.map((decision, index) => (
                  <tr key={decision.object_id ?? index}>
                    <th scope="row">{formatWhen(language, decision.at, 'second')}</th>
                    <td>{t(`decisions.direction.${decision.direction}`)}</td>
                    <td>
                      {[
                        decision.country ? countryName(language, decision.country) : null,
                        decision.kind === 'card' ? t('rails.cards') : decision.kind === 'bank' ? t('rails.bank', { code: decision.operator ?? '' }) : operatorName(decision.operator ?? ''),
                      ]
                        .filter(Boolean)
                        .join(' · ')}
                    </td>
                    <td>{railName(t, decision.rail)}</td>
                    <td className="wrap passed-over">
                      {decision.passed_over.length === 0 ? (
                        t('decisions.passedOver.none')
                      ) : (
                        <ul>
                          {decision.passed_over.map((p) => (
                            <li key={p.rail}>{t('decisions.passedOver.line', { rail: railName(t, p.rail), why: whyOf(p.why) })}</li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>
                      {decision.merchant_id ? (
                        <Link to="merchant" id={decision.merchant_id}>
                          <code>{decision.merchant_id}</code>
                        </Link>
                      ) : (
                        t('decisions.unrecorded')
                      )}
                    </td>
                    <td>
                      {decision.object_id ? (
                        <span className="copyable-id">
                          <code>{decision.object_id}</code>
                          <CopyButton text={decision.object_id} label={`${t('review.copy')}: ${decision.object_id}`} compact />
                        </span>
                      ) : (
                        t('decisions.unrecorded')
                      )}
                    </td>
                    <td>
                      <Badge status={decision.outcome}>{t(`decisions.outcome.${decision.outcome}`)}</Badge>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}

/** The live attempts left for review, each with its object's id and what to do. */
function Review() {
  const t = useConsoleT(railMessages);
  const { language } = useContext(LanguageContext);
  const review = useQuery({ queryKey: ['operator-rails-review'], queryFn: () => api.get('/api/v1/operator/rails/review'), refetchInterval: REFRESH_MS });
  return (
    <section aria-labelledby="rails-review">
      <h2 id="rails-review">{t('review.title')}</h2>
      <p className="help">{t('review.intro')}</p>
      <QueryView query={review} isEmpty={(r) => r.data.length === 0} empty={t('review.none')}>
        {(r) => (
          <Scrollable labelledBy="rails-review">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('review.object')}</th>
                  <th scope="col">{t('review.id')}</th>
                  <th scope="col">{t('review.merchant')}</th>
                  <th scope="col">{t('review.status')}</th>
                  <th scope="col">{t('review.amount')}</th>
                  <th scope="col">{t('review.created')}</th>
                  <th scope="col">{t('review.advice')}</th>
                </tr>
              </thead>
              <tbody>
                {r.data.map((item) => (
                  <tr key={item.id}>
                    <th scope="row">{t(`review.object.${item.object ?? 'payment_intent'}`)}</th>
                    <td>
                      <span className="copyable-id">
                        <code>{item.id}</code>
                        <CopyButton text={item.id ?? ''} label={`${t('review.copy')}: ${item.id}`} compact />
                      </span>
                    </td>
                    <td>
                      <Link to="merchant" id={item.merchantId ?? ''}>
                        <code>{item.merchantId}</code>
                      </Link>
                    </td>
                    <td>{item.status}</td>
                    <td className="amount">{formatAmount(language, item.amount ?? 0, item.currency ?? 'xof')}</td>
                    <td>{formatWhen(language, item.created)}</td>
                    <td className="wrap advice">{item.advice}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}
