import { useQuery } from '@tanstack/react-query';
import { useContext, useEffect, useState, type ReactNode } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../../src/shell/Badge.js';
import { CopyButton, isNotFound, QueryView, Scrollable } from '../../../src/shell/components.js';
import { countryName } from '../../../src/shell/countries.js';
import { formatAmount, formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { Link, type ConsolePageProps } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { Decide } from './Decide.js';
import { fieldName } from './fields.js';
import './review.css';
import { type ReviewedApplication } from './statuses.js';
import { applicationMessages } from './application.messages.js';

/** What the merchant submitted: the body of its POST /api/v1/merchant/activation, normalised, which the operator's answer gives untyped. */
type Submitted = NonNullable<Answer<'get', '/api/v1/merchant/activation'>['application']>;
type ReviewedDocument = NonNullable<ReviewedApplication['documents']>[number];
type CheckResult = NonNullable<NonNullable<ReviewedApplication['destinationCheck']>['result']>;

type T = ReturnType<typeof useConsoleT<keyof typeof applicationMessages.en>>;

/** How each answer of the rail reads at a glance, by the tones of the dashboard's badges. */
const CHECK_TONES: Record<CheckResult, string> = { accepted: 'accepted', holder_mismatch: 'failed', account_unknown: 'failed', not_payable: 'failed', unavailable: 'delayed' };

/** The image types the page shows; another document (a PDF) is offered as a download, as the CSP lets no frame or object show it. */
const SHOWN_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/**
 * One merchant's application as a reviewer decides on it (docs/operator.md, "The review"): what it
 * submitted, its identity document, the rail's check of its settlement destination, its sandbox
 * activity and every decision; then, for reviewers and admins, the decisions its status allows.
 */
export function Application({ operator, id, onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(applicationMessages);
  const merchantId = id ?? '';
  const application = useQuery({
    queryKey: ['operator-application', merchantId],
    queryFn: () => api.get('/api/v1/operator/applications/{merchantId}', { params: { path: { merchantId } } }),
  });
  if (application.isError && isNotFound(application.error)) return <NoApplication title={t('app.notFound')} text={t('app.notFound.text')} />;
  if (application.data?.status === 'not_submitted') return <NoApplication title={application.data.merchantName ?? merchantId} text={t('app.notSubmitted')} />;
  const mayDecide = operator.role === 'reviewer' || operator.role === 'admin';
  return (
    <main className="page review">
      <p>
        <Link to="home">{t('app.back')}</Link>
      </p>
      <QueryView query={application}>
        {(a) => (
          <>
            <hgroup className="object-heading">
              <h1>{a.legalName ?? a.merchantName ?? merchantId}</h1>
              <p>
                <span className="copyable-id">
                  <code>{merchantId}</code>
                  <CopyButton text={merchantId} label={t('app.copyId')} compact />
                </span>
              </p>
            </hgroup>
            <Status application={a} t={t} />
            {a.application && <Submission merchantId={merchantId} application={a} submitted={a.application as unknown as Submitted} t={t} />}
            <SandboxActivity activity={a.sandboxActivity} t={t} />
            <History decisions={a.decisions ?? []} operatorId={operator.id} t={t} />
            {mayDecide && <Decide merchantId={merchantId} application={a} onSignedOut={onSignedOut} />}
          </>
        )}
      </QueryView>
    </main>
  );
}

/** An unknown merchant, or one that never applied: said, with the way back to the queue. */
function NoApplication({ title, text }: { title: string; text: string }) {
  const t = useConsoleT(applicationMessages);
  return (
    <main className="page">
      <h1>{title}</h1>
      <p role="alert">{text}</p>
      <Link to="home">{t('app.back')}</Link>
    </main>
  );
}

/** A term and its value in a `dl.facts`; nothing when there is no value. */
function Fact({ term, children }: { term: string; children: ReactNode }) {
  if (children === null || children === undefined || children === '') return null;
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Status({ application: a, t }: { application: ReviewedApplication; t: T }) {
  const { language } = useContext(LanguageContext);
  return (
    <section className="panel" aria-labelledby="application-status">
      <h2 id="application-status">{t('app.status')}</h2>
      {a.status && (
        <p>
          <Badge status={a.status}>{t(`status.${a.status}`)}</Badge>
        </p>
      )}
      <dl className="facts">
        <Fact term={t('app.account')}>{a.merchantName}</Fact>
        <Fact term={t('app.submitted')}>{formatWhen(language, a.submittedAt)}</Fact>
        {(a.submissions ?? 0) > 1 && <Fact term={t('app.firstSubmitted')}>{formatWhen(language, a.firstSubmittedAt)}</Fact>}
        <Fact term={t('app.submissions')}>{String(a.submissions)}</Fact>
      </dl>
    </section>
  );
}

/** What the merchant submitted: the business, its representative and document, its owners, where its money goes and how much. */
function Submission({ merchantId, application: a, submitted: s, t }: { merchantId: string; application: ReviewedApplication; submitted: Submitted; t: T }) {
  const { language } = useContext(LanguageContext);
  const address = [s.business.address.line1, s.business.address.line2, s.business.address.postal_code, s.business.address.city].filter(Boolean).join(', ');
  const website = s.business.website;
  const volume = s.expected_monthly_volume;
  return (
    <>
      <section aria-labelledby="application-business">
        <h2 id="application-business">{t('app.business')}</h2>
        <dl className="facts">
          <Fact term={fieldName(t, 'business.legal_name')}>{s.business.legal_name}</Fact>
          <Fact term={fieldName(t, 'business.trading_name')}>{s.business.trading_name}</Fact>
          <Fact term={fieldName(t, 'business.type')}>{t(`type.${s.business.type}`)}</Fact>
          <Fact term={fieldName(t, 'business.registration_number')}>{s.business.registration_number}</Fact>
          <Fact term={fieldName(t, 'business.country')}>{countryName(language, s.business.country)}</Fact>
          <Fact term={fieldName(t, 'business.address')}>{address}</Fact>
          <Fact term={fieldName(t, 'business.product_description')}>{s.business.product_description}</Fact>
          <Fact term={fieldName(t, 'business.website')}>
            {website && /^https?:\/\//i.test(website) ? (
              <a href={website} target="_blank" rel="noopener noreferrer">
                {website}
              </a>
            ) : (
              website
            )}
          </Fact>
          <Fact term={fieldName(t, 'expected_monthly_volume')}>{formatAmount(language, volume.amount, volume.currency)}</Fact>
        </dl>
      </section>
      <section aria-labelledby="application-representative">
        <h2 id="application-representative">{t('app.representative')}</h2>
        <dl className="facts">
          <Fact term={fieldName(t, 'representative.name')}>{s.representative.name}</Fact>
          <Fact term={fieldName(t, 'representative.date_of_birth')}>{formatWhen(language, s.representative.date_of_birth, 'utcDate')}</Fact>
        </dl>
        <h3>{t('app.document')}</h3>
        {(a.documents ?? []).map((d) => (
          <IdentityDocument key={d.assetId} merchantId={merchantId} document={d} t={t} />
        ))}
      </section>
      {(s.business.type === 'company' || s.owners.length > 0) && (
        <section aria-labelledby="application-owners">
          <h2 id="application-owners">{t('app.owners')}</h2>
          {s.owners.length === 0 ? (
            <p>{t('app.owners.none')}</p>
          ) : (
            <Scrollable labelledBy="application-owners">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{fieldName(t, 'representative.name')}</th>
                    <th scope="col">{fieldName(t, 'representative.date_of_birth')}</th>
                    <th scope="col" className="amount">
                      {t('app.owner.share')}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {s.owners.map((o, i) => (
                    <tr key={i}>
                      <th scope="row">{o.name}</th>
                      <td>{formatWhen(language, o.date_of_birth, 'utcDate')}</td>
                      <td className="amount">{o.ownership_percent} %</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </section>
      )}
      <Settlement destination={s.settlement_destination} check={a.destinationCheck ?? null} t={t} />
    </>
  );
}

function Settlement({ destination: d, check, t }: { destination: Submitted['settlement_destination']; check: ReviewedApplication['destinationCheck']; t: T }) {
  const { language } = useContext(LanguageContext);
  return (
    <section aria-labelledby="application-settlement">
      <h2 id="application-settlement">{t('app.settlement')}</h2>
      <dl className="facts">
        <Fact term={t('app.destination.type')}>{t(d.type === 'bank' ? 'app.destination.bank' : 'app.destination.mobile_money')}</Fact>
        <Fact term={t('app.destination.operator')}>{d.operator?.replaceAll('_', ' ')}</Fact>
        <Fact term={t('app.destination.msisdn')}>{d.msisdn}</Fact>
        <Fact term={t('app.destination.bankCode')}>{d.bank_code}</Fact>
        <Fact term={t('app.destination.accountNumber')}>{d.account_number}</Fact>
        <Fact term={t('app.destination.accountName')}>{d.account_name}</Fact>
        <Fact term={t('app.destination.country')}>{d.country ? countryName(language, d.country) : null}</Fact>
        <Fact term={t('app.destination.currency')}>{d.currency.toUpperCase()}</Fact>
      </dl>
      <h3>{t('app.check')}</h3>
      {check?.result ? (
        <div className="destination-check">
          <p>
            <Badge status={CHECK_TONES[check.result]}>{t(`app.check.${check.result}`)}</Badge> {t(`app.check.says.${check.result}`)}
          </p>
          {check.holderName && <p>{t('app.check.holder', { name: check.holderName })}</p>}
          {check.detail && <p>{check.detail}</p>}
          <p className="help">{t('app.check.at', { when: formatWhen(language, check.checkedAt) })}</p>
        </div>
      ) : (
        <p>{t('app.check.none')}</p>
      )}
    </section>
  );
}

/**
 * The identity document's bytes, fetched with the operator's session: an image shown in the page
 * (as a data: URL, the only images the CSP allows besides the console's own), anything else (a PDF)
 * a download from a blob: URL. The bytes are dropped when the page closes (the API's no-store).
 */
function IdentityDocument({ merchantId, document: d, t }: { merchantId: string; document: ReviewedDocument; t: T }) {
  const name = d.name ?? '';
  const shown = SHOWN_TYPES.includes(d.contentType ?? '');
  const bytes = useQuery({
    queryKey: ['operator-application-document', merchantId, d.assetId],
    queryFn: async () => (await api.get('/api/v1/operator/applications/{merchantId}/documents/{assetId}', { params: { path: { merchantId, assetId: d.assetId ?? '' } }, parseAs: 'blob' })) as unknown as Blob,
    enabled: d.name !== null,
    staleTime: Infinity,
    gcTime: 0,
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const blob = bytes.data;
    if (!blob) return;
    if (!shown) {
      const objectUrl = URL.createObjectURL(blob);
      setUrl(objectUrl);
      return () => URL.revokeObjectURL(objectUrl);
    }
    let current = true;
    const reader = new FileReader();
    reader.onload = () => current && setUrl(String(reader.result));
    reader.readAsDataURL(blob);
    return () => {
      current = false;
    };
  }, [bytes.data, shown]);
  if (d.name === null) return <p>{t('app.document.deleted')}</p>;
  return (
    <div className="identity-document">
      <QueryView query={bytes}>
        {() =>
          url === null ? (
            <p aria-busy="true">{t('app.document.loading')}</p>
          ) : shown ? (
            <img src={url} alt={t('app.document.alt', { name })} />
          ) : (
            <>
              <p className="help">{t('app.document.pdf')}</p>
              <a href={url} download={name}>
                {t('app.document.download', { name })}
              </a>
            </>
          )
        }
      </QueryView>
    </div>
  );
}

function SandboxActivity({ activity, t }: { activity: ReviewedApplication['sandboxActivity']; t: T }) {
  const { language } = useContext(LanguageContext);
  const rows = [
    { what: t('app.sandbox.payments'), counts: activity?.payments },
    { what: t('app.sandbox.payouts'), counts: activity?.payouts },
  ];
  return (
    <section aria-labelledby="application-sandbox">
      <h2 id="application-sandbox">{t('app.sandbox')}</h2>
      <p className="help">{t('app.sandbox.help')}</p>
      <Scrollable labelledBy="application-sandbox">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('app.sandbox.what')}</th>
              <th scope="col" className="amount">
                {t('app.sandbox.total')}
              </th>
              <th scope="col" className="amount">
                {t('app.sandbox.succeeded')}
              </th>
              <th scope="col" className="amount">
                {t('app.sandbox.failed')}
              </th>
              <th scope="col">{t('app.sandbox.last')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.what}>
                <th scope="row">{r.what}</th>
                <td className="amount">{r.counts?.total ?? 0}</td>
                <td className="amount">{r.counts?.succeeded ?? 0}</td>
                <td className="amount">{r.counts?.failed ?? 0}</td>
                <td>{r.counts?.lastCreated ? formatWhen(language, r.counts.lastCreated) : t('app.sandbox.never')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scrollable>
    </section>
  );
}

/** Every decision on the application, oldest first, with its operator, reason and the fields asked for. */
function History({ decisions, operatorId, t }: { decisions: NonNullable<ReviewedApplication['decisions']>; operatorId: string; t: T }) {
  const { language } = useContext(LanguageContext);
  const who = (by: string | undefined) => (by === `operator:${operatorId}` ? t('app.history.you') : (by ?? '').replace(/^operator:/, ''));
  return (
    <section aria-labelledby="application-history">
      <h2 id="application-history">{t('app.history')}</h2>
      {decisions.length === 0 ? (
        <p>{t('app.history.none')}</p>
      ) : (
        <ol className="decision-history">
          {decisions.map((d, i) => (
            <li key={i}>
              <p>
                <strong>{d.decision ? t(`app.decision.${d.decision}`) : null}</strong> · {formatWhen(language, d.at)} · {t('app.history.by', { who: who(d.by) })}
              </p>
              {d.reason && <p>{t('app.history.reason', { reason: d.reason })}</p>}
              {(d.fields ?? []).length > 0 && (
                <ul>
                  {(d.fields ?? []).map((f) => (
                    <li key={f.field}>
                      <strong>{fieldName(t, f.field ?? '')}</strong>: {f.message}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
