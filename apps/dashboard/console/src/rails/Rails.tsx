import { useQuery } from '@tanstack/react-query';
import { useContext, useState } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../../src/shell/Badge.js';
import { CopyButton, QueryView, Scrollable } from '../../../src/shell/components.js';
import { countryName } from '../../../src/shell/countries.js';
import { formatAmount, formatWhen, LanguageContext, LOCALES, type Language, type Messages } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { ENVIRONMENTS, RAIL_WORDS, railName, type Environment } from './railWords.js';
import { EnvironmentSelect } from './EnvironmentSelect.js';
import './rails.css';

const WORDS = {
  en: {
    ...RAIL_WORDS.en,
    'rails.title': 'Rails',
    'rails.intro': 'What each rail says of itself now, what the router does with it, and how the attempts it carried ended: the last hour and the last 24 hours, per direction, country and operator. Success is succeeded ÷ (succeeded + failed).',
    'rails.none': 'No rail is configured for this environment, and none carried an attempt in the last 24 hours.',
    'rails.quiet': 'No attempt in the last 24 hours.',
    'rails.direction': 'Direction',
    'rails.direction.collect': 'Payments in',
    'rails.direction.payout': 'Payouts out',
    'rails.country': 'Country',
    'rails.operator': 'Operator',
    'rails.currency': 'Currency',
    'rails.availability': 'Availability',
    'rails.lastHour': 'Last hour',
    'rails.lastDay': 'Last 24 hours',
    'rails.cards': 'Cards',
    'rails.bank': 'Bank {code}',
    'availability.available': 'Available',
    'availability.degraded': 'Degraded',
    'availability.unavailable': 'Unavailable',
    'availability.unknown': 'Not known',
    'rails.router': 'Router',
    'breaker.closed': 'Chosen',
    'breaker.open': 'Set aside until {until}',
    'breaker.half_open': 'One probe may go',
    'breaker.probe': 'Probe under way',
    'breaker.none': '—',
    'measure.rate': '{rate} success',
    'measure.noRate': 'No final answer yet',
    'measure.counts': '{attempts} attempts: {succeeded} succeeded, {failed} failed (rail faults: {railFaults}), {pending} pending',
    'review.title': 'Left for review',
    'review.intro': 'Live attempts no status check will ask about any more: nothing is failed by guess; each waits for the rail’s record.',
    'review.none': 'Nothing is left for review: every live attempt has a final answer, or a status check still to come.',
    'review.object': 'What',
    'review.object.payment_intent': 'Payment',
    'review.object.payout': 'Payout',
    'review.object.refund': 'Refund',
    'review.id': 'Id',
    'review.merchant': 'Merchant',
    'review.status': 'Status',
    'review.amount': 'Amount',
    'review.created': 'Created',
    'review.advice': 'What to do',
    'review.copy': 'Copy the id',
    'decisions.title': 'Recent decisions',
    'decisions.intro': 'The rail the router chose for each new payment and payout, newest first, across merchants, and the rails it passed over for it and why: declared closed by their provider, set aside by their breaker after their own failures, a first attempt refused, or a wallet short of a payout.',
    'decisions.environment': 'Environment',
    'decisions.detoursOnly': 'Only those where a rail was passed over',
    'decisions.none': 'No decision yet in this environment.',
    'decisions.noDetour': 'No rail was passed over in the recent decisions.',
    'decisions.at': 'Time',
    'decisions.direction': 'What',
    'decisions.direction.collect': 'Payment',
    'decisions.direction.payout': 'Payout',
    'decisions.subject': 'Country and operator',
    'decisions.rail': 'Rail chosen',
    'decisions.passedOver': 'Passed over',
    'decisions.passedOver.none': 'None',
    'decisions.passedOver.line': '{rail}: {why}',
    'why.declared_unavailable': 'declared closed by its provider',
    'why.set_aside': 'set aside by its breaker after its own failures',
    'why.rejected': 'refused the first attempt, so it was tried on another',
    'why.float_short': 'its wallet could not cover the payout',
    'why.other': 'passed over ({why})',
    'decisions.merchant': 'Merchant',
    'decisions.object': 'Payment or payout',
    'decisions.outcome': 'Outcome',
    'decisions.outcome.pending': 'Pending',
    'decisions.outcome.succeeded': 'Succeeded',
    'decisions.outcome.failed': 'Failed',
    'decisions.unrecorded': 'Not recorded',
  },
  fr: {
    ...RAIL_WORDS.fr,
    'rails.title': 'Rails',
    'rails.intro': 'Ce que chaque rail dit de lui-même maintenant, ce qu’en fait le routeur, et comment se sont terminées les tentatives qu’il a portées : la dernière heure et les dernières 24 heures, par sens, pays et opérateur. Le succès est réussies ÷ (réussies + échouées).',
    'rails.none': 'Aucun rail n’est configuré pour cet environnement, et aucun n’a porté de tentative ces dernières 24 heures.',
    'rails.quiet': 'Aucune tentative ces dernières 24 heures.',
    'rails.direction': 'Sens',
    'rails.direction.collect': 'Paiements entrants',
    'rails.direction.payout': 'Versements sortants',
    'rails.country': 'Pays',
    'rails.operator': 'Opérateur',
    'rails.currency': 'Devise',
    'rails.availability': 'Disponibilité',
    'rails.lastHour': 'Dernière heure',
    'rails.lastDay': 'Dernières 24 heures',
    'rails.cards': 'Cartes',
    'rails.bank': 'Banque {code}',
    'availability.available': 'Disponible',
    'availability.degraded': 'Dégradé',
    'availability.unavailable': 'Indisponible',
    'availability.unknown': 'Inconnue',
    'rails.router': 'Routeur',
    'breaker.closed': 'Choisi',
    'breaker.open': 'Écarté jusqu’à {until}',
    'breaker.half_open': 'Un essai peut passer',
    'breaker.probe': 'Essai en cours',
    'breaker.none': '—',
    'measure.rate': '{rate} de succès',
    'measure.noRate': 'Pas encore de réponse finale',
    'measure.counts': '{attempts} tentatives : {succeeded} réussies, {failed} échouées (pannes du rail : {railFaults}), {pending} en attente',
    'review.title': 'À examiner',
    'review.intro': 'Les tentatives live qu’aucune vérification de statut n’interrogera plus : rien n’est échoué au jugé ; chacune attend le relevé du rail.',
    'review.none': 'Rien n’est à examiner : chaque tentative live a une réponse finale, ou une vérification de statut à venir.',
    'review.object': 'Quoi',
    'review.object.payment_intent': 'Paiement',
    'review.object.payout': 'Versement',
    'review.object.refund': 'Remboursement',
    'review.id': 'Identifiant',
    'review.merchant': 'Marchand',
    'review.status': 'Statut',
    'review.amount': 'Montant',
    'review.created': 'Créé le',
    'review.advice': 'Que faire',
    'review.copy': 'Copier l’identifiant',
    'decisions.title': 'Décisions récentes',
    'decisions.intro': 'Le rail que le routeur a choisi pour chaque nouveau paiement et versement, du plus récent au plus ancien, tous marchands confondus, et les rails qu’il a écartés et pourquoi : déclarés fermés par leur fournisseur, mis de côté par leur disjoncteur après leurs propres échecs, une première tentative refusée, ou un portefeuille qui ne couvrait pas un versement.',
    'decisions.environment': 'Environnement',
    'decisions.detoursOnly': 'Seulement celles où un rail a été écarté',
    'decisions.none': 'Aucune décision encore dans cet environnement.',
    'decisions.noDetour': 'Aucun rail n’a été écarté dans les décisions récentes.',
    'decisions.at': 'Heure',
    'decisions.direction': 'Quoi',
    'decisions.direction.collect': 'Paiement',
    'decisions.direction.payout': 'Versement',
    'decisions.subject': 'Pays et opérateur',
    'decisions.rail': 'Rail choisi',
    'decisions.passedOver': 'Écartés',
    'decisions.passedOver.none': 'Aucun',
    'decisions.passedOver.line': '{rail} : {why}',
    'why.declared_unavailable': 'déclaré fermé par son fournisseur',
    'why.set_aside': 'mis de côté par son disjoncteur après ses propres échecs',
    'why.rejected': 'a refusé la première tentative, essayée alors sur un autre',
    'why.float_short': 'son portefeuille ne couvrait pas le versement',
    'why.other': 'écarté ({why})',
    'decisions.merchant': 'Marchand',
    'decisions.object': 'Paiement ou versement',
    'decisions.outcome': 'Issue',
    'decisions.outcome.pending': 'En attente',
    'decisions.outcome.succeeded': 'Réussi',
    'decisions.outcome.failed': 'Échoué',
    'decisions.unrecorded': 'Non enregistré',
  },
} satisfies Messages<string>;

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
  const t = useConsoleT(WORDS);
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
  const t = useConsoleT(WORDS);
  const health = useQuery({ queryKey: ['operator-rails', environment], queryFn: () => api.get('/api/v1/operator/rails', { params: { query: { environment } } }), refetchInterval: REFRESH_MS });
  const heading = `rails-${environment}`;
  return (
    <section aria-labelledby={heading}>
      <h2 id={heading}>{t(`environment.${environment}`)}</h2>
      <QueryView query={health} isEmpty={(h) => railsOf(h).length === 0} empty={t('rails.none')}>
        {(h) =>
          railsOf(h).map((rail) => (
            <RailTable key={rail} id={`${heading}-${rail}`} rail={rail} lines={h.lines.filter((l) => l.rail === rail)} />
          ))
        }
      </QueryView>
    </section>
  );
}

/** The rails configured, in the order they are asked, then any other that carried an attempt (the sandbox's, unrecorded live ones). */
const railsOf = (h: Health): string[] => [...new Set([...h.rails, ...h.lines.map((l) => l.rail ?? '')])].filter(Boolean);

function RailTable({ id, rail, lines }: { id: string; rail: string; lines: HealthLine[] }) {
  const t = useConsoleT(WORDS);
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
  const t = useConsoleT(WORDS);
  if (availability === null) return <Badge status="unknown">{t('availability.unknown')}</Badge>;
  // The badges' tones are the statuses': a closed rail reads as a failure.
  return <Badge status={availability === 'unavailable' ? 'failed' : availability}>{t(`availability.${availability}`)}</Badge>;
}

/** What the router does with the rail for this subject, from its measured health (docs/connectors.md, "Health"). */
function BreakerBadge({ breaker }: { breaker: HealthLine['breaker'] | null }) {
  const t = useConsoleT(WORDS);
  const { language } = useContext(LanguageContext);
  if (!breaker) return <>{t('breaker.none')}</>;
  if (breaker.state === 'open') return <Badge status="failed">{t('breaker.open', { until: formatWhen(language, breaker.until) })}</Badge>;
  if (breaker.state === 'half_open') return <Badge status="degraded">{t(breaker.probe_in_flight ? 'breaker.probe' : 'breaker.half_open')}</Badge>;
  return <Badge status="available">{t('breaker.closed')}</Badge>;
}

/** A window's success rate, then its counts. */
function MeasureCell({ measure }: { measure: Measure | undefined }) {
  const t = useConsoleT(WORDS);
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
  const t = useConsoleT(WORDS);
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
                    <td>{[decision.country ? countryName(language, decision.country) : null, decision.kind === 'card' ? t('rails.cards') : decision.kind === 'bank' ? t('rails.bank', { code: decision.operator ?? '' }) : operatorName(decision.operator ?? '')].filter(Boolean).join(' · ')}</td>
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
  const t = useConsoleT(WORDS);
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
