import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import QRCode from 'qrcode';
import { useContext, useEffect, useState, type FormEvent } from 'react';
import { CopyButton, CursorPager, ErrorMessage, errorText, QueryView, Scrollable, useCursorPages } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { CountrySelect, useCountry } from '../../shell/countries.js';
import type { PageProps } from '../../shell/props.js';
import { paymentLinkMessages } from './paymentLinks.messages.js';

interface PaymentLink {
  id: string;
  url: string;
  amount: number;
  currency: string;
  description?: string | null;
  expiresAt?: string | null;
  isSingleUse: boolean;
  active: boolean;
  created: number;
}

/** Payment links of the environment shown: a new one (its URL and QR code to share), and the list with copy, QR code and deactivate. */
export function PaymentLinks({ environment, onSignedOut }: PageProps) {
  const t = useMessages(paymentLinkMessages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [country, setCountry] = useState('SN');
  const [error, setError] = useState<string | null>(null);
  // The refusal itself: live closed says what to do (ErrorMessage).
  const [failure, setFailure] = useState<unknown>(null);
  const [created, setCreated] = useState<PaymentLink | null>(null);
  // One key per filled-in form: a double click creates one link; the next form gets a new key.
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const [active, setActive] = useState<'' | 'true' | 'false'>('');
  const pages = useCursorPages(environment);

  const { countries, chosen } = useCountry('payin', country, onSignedOut);
  const currency = chosen?.currency ?? 'xof';
  const after = pages.after;
  const links = useQuery({
    queryKey: ['payment-links', environment, active, after],
    queryFn: () => withSession(() => sika.get('/api/v1/payment_links', { params: { query: { limit: 10, ...(active ? { active: active === 'true' } : {}), ...(after ? { starting_after: after } : {}) } } }), onSignedOut),
  });

  const create = useMutation({
    mutationFn: (form: FormData) => {
      const amount = Number(form.get('amount'));
      const expires = String(form.get('expires') ?? '');
      const description = String(form.get('description') ?? '').trim();
      return sika.post('/api/v1/payment_links', {
        body: {
          amount: Number.isFinite(amount) ? minorUnits(amount, currency) : 0,
          currency,
          country,
          feeMode: form.get('feeMode') === 'customer' ? 'customer' : 'merchant',
          isSingleUse: form.get('singleUse') === 'on',
          ...(description ? { description } : {}),
          ...(expires ? { expiresAt: `${expires}T00:00:00Z` } : {}),
        },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
    },
    onSuccess: (link) => {
      setCreated(link as PaymentLink);
      setIdempotencyKey(crypto.randomUUID());
      pages.reset();
      void queries.invalidateQueries({ queryKey: ['payment-links', environment] });
    },
    onError: (err) => {
      setError(errorText(err, t('error.generic')));
      setFailure(err);
    },
  });
  const deactivate = useMutation({
    mutationFn: (id: string) => sika.post('/api/v1/payment_links/{id}/deactivate', { params: { path: { id } } }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: ['payment-links', environment] }),
    onError: (err) => setError(errorText(err, t('error.generic'))),
  });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setError(null);
    setFailure(null);
    setCreated(null);
    const form = e.currentTarget;
    create.mutate(new FormData(form), { onSuccess: () => form.reset() });
  };
  const nameOf = (l: PaymentLink) => l.description || formatAmount(language, l.amount, l.currency);
  const statusOf = (l: PaymentLink) => (!l.active ? 'inactive' : l.expiresAt && Date.parse(l.expiresAt) <= Date.now() ? 'expired' : 'active');

  return (
    <main className="page">
      <h1>{t('nav.paymentLinks')}</h1>
      <section aria-labelledby="new-link">
        <h2 id="new-link">{t('new')}</h2>
        <ErrorMessage text={error} error={failure} />
        {created && (
          <div className="panel" role="status">
            <p>{t('created')}</p>
            <p>
              <a href={created.url} target="_blank" rel="noreferrer">
                {created.url}
              </a>
            </p>
            <div className="actions">
              <CopyButton text={created.url} label={t('copyLink', { name: nameOf(created) })} />
            </div>
            <QrCode url={created.url} alt={t('qrAlt', { name: nameOf(created) })} />
          </div>
        )}
        <form className="inline-form" onSubmit={submit} aria-label={t('new')}>
          <CountrySelect label={t('country')} name="country" countries={countries} value={country} onChange={setCountry} />
          <label>
            {t('amount')} ({currency.toUpperCase()})
            <input name="amount" type="number" inputMode="decimal" min="0" step="any" required />
          </label>
          <label>
            {t('description')}
            <input name="description" maxLength={500} />
          </label>
          <label>
            {t('feeMode')}
            <select name="feeMode" defaultValue="merchant">
              <option value="merchant">{t('feeMode.merchant')}</option>
              <option value="customer">{t('feeMode.customer')}</option>
            </select>
          </label>
          <label>
            {t('expires')}
            <input name="expires" type="date" aria-describedby="expires-help" />
            <small id="expires-help">{t('expiresHelp')}</small>
          </label>
          <label className="inline">
            <input name="singleUse" type="checkbox" /> {t('singleUse')}
          </label>
          <button type="submit" disabled={create.isPending}>
            {t('create')}
          </button>
        </form>
      </section>

      <section aria-labelledby="link-list">
        <h2 id="link-list">{t('list')}</h2>
        <label className="inline">
          {t('filter')}
          <select
            value={active}
            onChange={(e) => {
              setActive(e.target.value as '' | 'true' | 'false');
              pages.reset();
            }}
          >
            <option value="">{t('filter.all')}</option>
            <option value="true">{t('status.active')}</option>
            <option value="false">{t('status.inactive')}</option>
          </select>
        </label>
        <QueryView query={links} isEmpty={(d) => !d.data?.length} empty={t('none')}>
          {(list) => (
            <>
              <Scrollable labelledBy="link-list">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('description')}</th>
                      <th scope="col">{t('amount')}</th>
                      <th scope="col">{t('status')}</th>
                      <th scope="col">{t('createdAt')}</th>
                      <th scope="col">{t('link')}</th>
                      <th scope="col">{t('actions')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {((list.data ?? []) as PaymentLink[]).map((l) => (
                      <LinkRow key={l.id} link={l} name={nameOf(l)} status={statusOf(l)} statusWords={t(`status.${statusOf(l)}`)} onDeactivate={() => deactivate.mutate(l.id)} deactivating={deactivate.isPending} />
                    ))}
                  </tbody>
                </table>
              </Scrollable>
              <CursorPager pages={pages} label={t('pages')} hasMore={list.has_more ?? false} lastId={list.data?.at(-1)?.id as string | undefined} />
            </>
          )}
        </QueryView>
      </section>
    </main>
  );
}

function LinkRow({ link, name, status, statusWords, onDeactivate, deactivating }: { link: PaymentLink; name: string; status: string; statusWords: string; onDeactivate: () => void; deactivating: boolean }) {
  const t = useMessages(paymentLinkMessages);
  const { language } = useContext(LanguageContext);
  const [showQr, setShowQr] = useState(false);
  return (
    <tr>
      <th scope="row">{name}</th>
      <td className="amount">{formatAmount(language, link.amount, link.currency)}</td>
      <td>
        <Badge status={status}>{statusWords}</Badge>
      </td>
      <td>{formatWhen(language, link.created, 'date')}</td>
      <td>
        <a href={link.url} target="_blank" rel="noreferrer">
          {link.url.replace(/^https?:\/\//, '')}
        </a>
        {showQr && <QrCode url={link.url} alt={t('qrAlt', { name })} />}
      </td>
      <td className="actions">
        <CopyButton text={link.url} label={t('copyLink', { name })} />
        <button type="button" className="secondary" aria-pressed={showQr} aria-label={`${t('qr')}: ${name}`} onClick={() => setShowQr(!showQr)}>
          {t('qr')}
        </button>
        {link.active && (
          <button type="button" className="secondary" aria-label={`${t('deactivate')}: ${name}`} disabled={deactivating} onClick={onDeactivate}>
            {t('deactivate')}
          </button>
        )}
      </td>
    </tr>
  );
}

/** The link as a QR code (an SVG image made in the page: the policy allows data: images). */
function QrCode({ url, alt }: { url: string; alt: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }).then((svg) => current && setSrc(`data:image/svg+xml,${encodeURIComponent(svg)}`));
    return () => {
      current = false;
    };
  }, [url]);
  return src ? <img className="qr" src={src} alt={alt} width={160} height={160} /> : null;
}
