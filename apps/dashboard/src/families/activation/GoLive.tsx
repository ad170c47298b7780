import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, useState, type FormEvent, type ReactNode } from 'react';
import { SikaError, type Environment } from '../../../../../clients/typescript/src/index.js';
import { ActivationState, useActivation, useActivationWords, type Activation } from '../../shell/activation.js';
import { BankFields, useBanks } from '../../shell/BankFields.js';
import { ErrorMessage, errorText, NavigationContext, QueryView } from '../../shell/components.js';
import { CountrySelect, CurrencySelect, useCountries, WalletFields } from '../../shell/countries.js';
import { decimalsOf, formatWhen, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import type { PageProps } from '../../shell/props.js';
import { pathOf as addressOf, type PageName } from '../../shell/router.js';
import { sika, uploadWithProgress, withSession } from '../../shell/session.js';
import { goLiveMessages } from './goLive.messages.js';

type BusinessType = 'individual' | 'company';
/** An owner of a company, as the last submission gave it back (`application.owners`). */
type Owner = NonNullable<Activation['application']>['owners'][number];
/** A note beside a field: the platform's request, or the API's refusal of the last submission. */
type Note = { field: string; message: string };

/** Fields some businesses may leave out, until the API says what the chosen country and type require. Every other field is asked of every business. */
const OPTIONAL_FIELDS = new Set(['business.trading_name', 'business.registration_number', 'business.website']);
const MAX_OWNERS = 4;
/** The fields the form marks, by their path in the API; a note on a path none of them covers is said above the form. */
const FIELDS = [
  'business.legal_name',
  'business.trading_name',
  'business.type',
  'business.registration_number',
  'business.country',
  'business.address',
  'business.product_description',
  'business.website',
  'representative.name',
  'representative.date_of_birth',
  'representative.identity_document',
  'owners',
  'settlement_destination',
  'expected_monthly_volume',
];

/** The API's field of a refusal as an application path: `business.address.city` (ajv may say `/business/address/city`). */
const pathOf = (param: string) => param.replace(/^\//, '').replaceAll('/', '.');

async function sha256Hex(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The merchant's application to take live money (POST /api/v1/merchant/activation) and where it
 * stands: the form before a first submission and after the platform asked for information (each
 * field asked marked with the platform's message), the status in words otherwise.
 */
export function GoLive({ environment, onSignedOut }: PageProps) {
  const go = useContext(NavigationContext) as (page: PageName, id?: string, environment?: Environment) => void;
  const t = useMessages(goLiveMessages);
  const words = useActivationWords();
  const { language } = useContext(LanguageContext);
  const activation = useActivation(onSignedOut);
  return (
    <main className="page go-live">
      <h1>{t('title')}</h1>
      <QueryView query={activation}>
        {(a) => (
          <>
            <section aria-labelledby="application-state" className="panel">
              <h2 id="application-state">{words.title}</h2>
              <ActivationState activation={a} />
              {a.submitted !== null && <p className="help">{t('submitted', { date: formatWhen(language, a.submitted) })}</p>}
              {a.status === 'active' && (
                <a
                  href={addressOf('home', undefined, 'live')}
                  onClick={(e) => {
                    e.preventDefault();
                    go('home', undefined, 'live');
                  }}
                >
                  {t('openLive')}
                </a>
              )}
            </section>
            {a.status === 'information_requested' && (
              <section aria-labelledby="asked">
                <h2 id="asked">{t('asked')}</h2>
                <p>{t('asked.help')}</p>
                <ul className="asked-list">
                  {(a.requirements.errors ?? []).map((e) => (
                    <li key={e.field}>
                      <strong>{fieldName(t, e.field ?? '')}</strong>: {e.message}
                    </li>
                  ))}
                </ul>
              </section>
            )}
            {(a.status === 'not_submitted' || a.status === 'information_requested') && <ApplicationForm activation={a} environment={environment} onSignedOut={onSignedOut} />}
          </>
        )}
      </QueryView>
    </main>
  );
}

/** A field of the form: its label around its control, the notes beside it; marked when it has notes (asked by the platform, or refused). */
function FieldBox({ notes, noteId, children }: { notes: string[]; noteId: string; children: ReactNode }) {
  return (
    <div className={notes.length > 0 ? 'field asked' : 'field'}>
      {children}
      {notes.length > 0 && (
        <p id={noteId} className="field-note">
          {notes.join(' ')}
        </p>
      )}
    </div>
  );
}

/** A field's name in words, by its path (`business.address.city` is named as `business.address`). */
function fieldName(t: ReturnType<typeof useMessages<never>>, path: string): string {
  const known = Object.keys(goLiveMessages.en)
    .filter((k) => k.startsWith('field.'))
    .map((k) => k.slice('field.'.length));
  const best = known.filter((k) => path === k || path.startsWith(`${k}.`)).sort((x, y) => y.length - x.length)[0];
  return best ? t(`field.${best}` as never) : path;
}

/** The application's form, filled with what was last submitted (a correction after the platform asked for information). */
function ApplicationForm({ activation, environment, onSignedOut }: { activation: Activation; environment: Environment; onSignedOut: () => void }) {
  const t = useMessages(goLiveMessages);
  const queries = useQueryClient();
  const last = activation.application;
  const [type, setType] = useState<BusinessType>(last?.business.type ?? 'individual');
  const [country, setCountry] = useState<string>((last?.business.country ?? 'SN').toUpperCase());
  const [settleTo, setSettleTo] = useState<'mobile_money' | 'bank'>(last?.settlement_destination.type === 'bank' ? 'bank' : 'mobile_money');
  const [owners, setOwners] = useState<{ key: string; filled?: Owner }[]>(() => {
    const submitted = last?.owners ?? [];
    return submitted.length > 0 ? submitted.map((o) => ({ key: crypto.randomUUID(), filled: o })) : [{ key: crypto.randomUUID() }];
  });
  // The document uploaded for a submission the API refused: the same file is not sent again.
  const [uploaded, setUploaded] = useState<{ file: File; id: string } | null>(null);
  const [refused, setRefused] = useState<Note[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [step, setStep] = useState<'uploading' | 'sending' | null>(null);

  const countries = useCountries(undefined, onSignedOut).data?.data ?? [];
  const chosen = countries.find((c) => c.id === country);
  const currency = chosen?.currency ?? 'xof';
  const operators = (chosen?.operators ?? []).filter((o) => o.directions.includes('payout'));
  const banks = useBanks(environment, currency, settleTo === 'bank', onSignedOut);

  // What the platform asked (after a request for information) and what the API refused last.
  const asked: Note[] = activation.status === 'information_requested' ? (activation.requirements.errors ?? []).map((e) => ({ field: e.field ?? '', message: e.message ?? '' })) : [];
  const due = new Set(activation.requirements.currently_due ?? []);
  // What the chosen country and type require, asked again when either changes (the catalog's, not this application's).
  const requirements = useQuery({
    queryKey: ['activation-requirements', country, type],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/activation/requirements', { params: { query: { country, type } } }), onSignedOut),
  });
  const required = requirements.data ? new Set(requirements.data.required) : null;
  const isDue = (path: string) => due.has(path) || (required ? required.has(path) : !OPTIONAL_FIELDS.has(path));
  const notesOf = (path: string) => [...asked, ...refused].filter((n) => n.field === path || n.field.startsWith(`${path}.`));
  const unplaced = [...asked, ...refused].filter((n) => !FIELDS.some((f) => n.field === f || n.field.startsWith(`${f}.`)) && (type === 'company' || !n.field.startsWith('owners')));
  const idOf = (path: string) => `note-${path.replaceAll('.', '-')}`;
  /** The attributes of a field's control: described by its notes, invalid when the API refused it. */
  const aria = (path: string) => {
    const notes = notesOf(path);
    return notes.length === 0 ? {} : { 'aria-describedby': idOf(path), 'aria-invalid': refused.some((n) => n.field === path || n.field.startsWith(`${path}.`)) || undefined };
  };
  /** What FieldBox needs of a field: its notes and their id. */
  const box = (path: string) => ({ notes: notesOf(path).map((n) => n.message), noteId: idOf(path) });
  const label = (path: string, text: string) => (isDue(path) ? text : `${text} (${t('optional')})`);

  const submit = useMutation({
    mutationFn: async (form: FormData) => {
      const text = (name: string) => String(form.get(name) ?? '').trim();
      const optional = (name: string) => (text(name) === '' ? {} : { [name.split('.').at(-1)!]: text(name) });
      let document = last?.representative.identity_document ?? '';
      const file = form.get('identity_document_file');
      if (file instanceof File && file.size > 0 && uploaded?.file === file) document = uploaded.id;
      else if (file instanceof File && file.size > 0) {
        setStep('uploading');
        const sha256 = await sha256Hex(file);
        const asset = await withSession(() => sika.post('/api/v1/assets', { body: { name: file.name, purpose: 'onboarding_document', contentType: file.type || 'application/octet-stream', size: file.size, sha256 } }), onSignedOut);
        await withSession(() => uploadWithProgress(`/api/v1/assets/${encodeURIComponent(asset.id)}/content`, file, () => undefined), onSignedOut);
        await withSession(() => sika.post('/api/v1/assets/{assetId}/complete', { params: { path: { assetId: asset.id } } }), onSignedOut);
        document = asset.id;
        setUploaded({ file, id: asset.id });
      }
      setStep('sending');
      const body = {
        business: {
          legal_name: text('business.legal_name'),
          ...optional('business.trading_name'),
          type,
          ...optional('business.registration_number'),
          country,
          address: { line1: text('business.address.line1'), ...optional('business.address.line2'), city: text('business.address.city'), ...optional('business.address.postal_code') },
          product_description: text('business.product_description'),
          ...optional('business.website'),
        },
        representative: { name: text('representative.name'), date_of_birth: text('representative.date_of_birth'), ...(document ? { identity_document: document } : {}) },
        ...(type === 'company'
          ? {
              owners: owners.map((_, i) => ({
                name: text(`owners.${i}.name`),
                ...(text(`owners.${i}.date_of_birth`) ? { date_of_birth: text(`owners.${i}.date_of_birth`) } : {}),
                ownership_percent: Number(text(`owners.${i}.ownership_percent`)),
              })),
            }
          : {}),
        settlement_destination:
          settleTo === 'bank'
            ? { type: 'bank' as const, bank_code: text('bank_code'), account_number: text('account_number'), account_name: text('account_name') }
            : { type: 'mobile_money' as const, country, operator: text('operator'), msisdn: text('msisdn') },
        expected_monthly_volume: { amount: minorUnits(Number(text('volume_amount')), text('volume_currency')), currency: text('volume_currency') },
      };
      return withSession(() => sika.post('/api/v1/merchant/activation', { body }), onSignedOut);
    },
    onMutate: () => {
      setRefused([]);
      setFailure(null);
    },
    onSuccess: (answer) => {
      queries.setQueryData(['activation'], answer);
      void queries.invalidateQueries({ queryKey: ['onboarding'] });
      window.scrollTo(0, 0);
    },
    onError: (err) => {
      if (err instanceof SikaError && err.code === 'IKW-ACT-001' && err.errors.length > 0) {
        // Every missing field, by its path in `errors`: each is marked, in the merchant's language.
        setRefused(err.errors.map((e) => ({ field: pathOf(e.param ?? ''), message: t('missing') })));
        setFailure(t('missing.some'));
      } else if (err instanceof SikaError && err.param) setRefused([{ field: pathOf(err.param), message: err.message }]);
      else setFailure(errorText(err, t('error.generic')));
    },
    onSettled: () => setStep(null),
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    submit.mutate(new FormData(e.currentTarget));
  };
  const b = last?.business;
  const r = last?.representative;
  const destination = last?.settlement_destination;
  const volume = last?.expected_monthly_volume ?? null;

  return (
    <form className="application" onSubmit={onSubmit} aria-label={t('title')}>
      <ErrorMessage text={failure} />
      {unplaced.length > 0 && (
        <ul className="field-note">
          {unplaced.map((n) => (
            <li key={n.field}>
              <strong>{fieldName(t, n.field)}</strong>: {n.message}
            </li>
          ))}
        </ul>
      )}
      <fieldset>
        <legend>{t('business')}</legend>
        <FieldBox {...box('business.type')}>
          <fieldset className="choice" {...aria('business.type')}>
            <legend>{t('field.business.type')}</legend>
            {(['individual', 'company'] as const).map((kind) => (
              <label key={kind}>
                <input type="radio" name="business.type" value={kind} checked={type === kind} onChange={() => setType(kind)} /> {t(`type.${kind}`)}
              </label>
            ))}
            <p className="help">{t('type.help')}</p>
          </fieldset>
        </FieldBox>
        <FieldBox {...box('business.legal_name')}>
          <label>
            {t('field.business.legal_name')}
            <input name="business.legal_name" required autoComplete="organization" defaultValue={b?.legal_name ?? ''} {...aria('business.legal_name')} />
          </label>
        </FieldBox>
        <FieldBox {...box('business.trading_name')}>
          <label>
            {label('business.trading_name', t('field.business.trading_name'))}
            <input name="business.trading_name" defaultValue={b?.trading_name ?? ''} {...aria('business.trading_name')} />
          </label>
        </FieldBox>
        <FieldBox {...box('business.country')}>
          <CountrySelect label={t('field.business.country')} name="business.country" countries={countries} value={country} onChange={setCountry} />
        </FieldBox>
        <FieldBox {...box('business.registration_number')}>
          <label>
            {label('business.registration_number', t('field.business.registration_number'))}
            <input
              name="business.registration_number"
              required={isDue('business.registration_number')}
              defaultValue={b?.registration_number ?? ''}
              aria-describedby={notesOf('business.registration_number').length ? idOf('business.registration_number') : 'registration-help'}
            />
          </label>
          <p id="registration-help" className="help">
            {t('registration.help')}
          </p>
        </FieldBox>
        <FieldBox {...box('business.address')}>
          <fieldset {...aria('business.address')}>
            <legend>{t('address')}</legend>
            <label>
              {t('address.line1')}
              <input name="business.address.line1" required autoComplete="address-line1" defaultValue={b?.address.line1 ?? ''} {...aria('business.address')} />
            </label>
            <label>
              {`${t('address.line2')} (${t('optional')})`}
              <input name="business.address.line2" autoComplete="address-line2" defaultValue={b?.address.line2 ?? ''} />
            </label>
            <label>
              {t('address.city')}
              <input name="business.address.city" required autoComplete="address-level2" defaultValue={b?.address.city ?? ''} />
            </label>
            <label>
              {`${t('address.postalCode')} (${t('optional')})`}
              <input name="business.address.postal_code" autoComplete="postal-code" defaultValue={b?.address.postal_code ?? ''} />
            </label>
          </fieldset>
        </FieldBox>
        <FieldBox {...box('business.product_description')}>
          <label>
            {t('field.business.product_description')}
            <textarea name="business.product_description" required rows={3} maxLength={1000} defaultValue={b?.product_description ?? ''} {...aria('business.product_description')} />
          </label>
        </FieldBox>
        <FieldBox {...box('business.website')}>
          <label>
            {label('business.website', t('field.business.website'))}
            <input name="business.website" required={isDue('business.website')} type="url" inputMode="url" autoComplete="url" placeholder="https://" defaultValue={b?.website ?? ''} {...aria('business.website')} />
          </label>
        </FieldBox>
      </fieldset>

      <fieldset>
        <legend>{t('representative')}</legend>
        <FieldBox {...box('representative.name')}>
          <label>
            {t('field.representative.name')}
            <input name="representative.name" required autoComplete="name" defaultValue={r?.name ?? ''} {...aria('representative.name')} />
          </label>
        </FieldBox>
        <FieldBox {...box('representative.date_of_birth')}>
          <label>
            {t('field.representative.date_of_birth')}
            <input name="representative.date_of_birth" type="date" required autoComplete="bday" defaultValue={r?.date_of_birth ?? ''} {...aria('representative.date_of_birth')} />
          </label>
        </FieldBox>
        <FieldBox {...box('representative.identity_document')}>
          <label>
            {t('field.representative.identity_document')}
            <input
              name="identity_document_file"
              type="file"
              accept="application/pdf,image/png,image/jpeg,image/webp"
              required={!r?.identity_document}
              aria-describedby={[notesOf('representative.identity_document').length ? idOf('representative.identity_document') : '', 'document-help'].filter(Boolean).join(' ')}
            />
          </label>
          <p id="document-help" className="help">
            {r?.identity_document ? `${t('document.current')} ${t('document.replace')}` : t('document.help')}
          </p>
        </FieldBox>
      </fieldset>

      {type === 'company' && (
        <fieldset>
          <legend>{t('owners')}</legend>
          <FieldBox {...box('owners')}>
            <p className="help">{t('owners.help')}</p>
            {owners.map((o, i) => (
              <fieldset key={o.key} className="owner">
                <legend>{t('owners.of', { n: i + 1 })}</legend>
                <label>
                  {t('owner.name')}
                  <input name={`owners.${i}.name`} required defaultValue={o.filled?.name ?? ''} {...aria('owners')} />
                </label>
                <label>
                  {`${t('owner.dateOfBirth')} (${t('optional')})`}
                  <input name={`owners.${i}.date_of_birth`} type="date" defaultValue={o.filled?.date_of_birth ?? ''} />
                </label>
                <label>
                  {t('owner.percent')}
                  <input name={`owners.${i}.ownership_percent`} type="number" min="25" max="100" step="any" inputMode="decimal" required defaultValue={o.filled?.ownership_percent ?? ''} />
                </label>
                {owners.length > 1 && (
                  <button type="button" className="secondary" onClick={() => setOwners(owners.filter((x) => x.key !== o.key))} aria-label={`${t('owners.remove')}: ${t('owners.of', { n: i + 1 })}`}>
                    {t('owners.remove')}
                  </button>
                )}
              </fieldset>
            ))}
            {owners.length < MAX_OWNERS && (
              <button type="button" className="secondary" onClick={() => setOwners([...owners, { key: crypto.randomUUID() }])}>
                {t('owners.add')}
              </button>
            )}
          </FieldBox>
        </fieldset>
      )}

      <fieldset>
        <legend>{t('settlement')}</legend>
        <FieldBox {...box('settlement_destination')}>
          <p className="help" id="settlement-help">
            {t('settlement.help', { currency: currency.toUpperCase() })}
          </p>
          <fieldset className="choice" {...aria('settlement_destination')}>
            <legend>{t('payouts.sendTo')}</legend>
            {(['mobile_money', 'bank'] as const).map((kind) => (
              <label key={kind}>
                <input type="radio" name="settle_to" value={kind} checked={settleTo === kind} onChange={() => setSettleTo(kind)} /> {t(kind === 'bank' ? 'payouts.toBank' : 'payouts.toWallet')}
              </label>
            ))}
          </fieldset>
          {settleTo === 'bank' ? (
            <>
              <BankFields banks={banks.data ?? []} />
              <label>
                {t('settlement.accountName')}
                <input name="account_name" required autoComplete="off" defaultValue={destination?.account_name ?? ''} />
              </label>
            </>
          ) : (
            <WalletFields
              labels={{ operator: t('payouts.operator'), msisdn: t('payouts.msisdn') }}
              operators={operators}
              callingCode={chosen?.calling_code}
              {...(destination?.type === 'mobile_money' ? { filled: { key: 'submitted', operator: destination.operator, msisdn: destination.msisdn } } : {})}
            />
          )}
        </FieldBox>
      </fieldset>

      <fieldset>
        <legend>{t('volume')}</legend>
        <FieldBox {...box('expected_monthly_volume')}>
          <label>
            {t('volume.amount')}
            <input name="volume_amount" type="number" min="0" step="any" inputMode="decimal" required defaultValue={volume ? volume.amount / 10 ** decimalsOf(volume.currency) : ''} {...aria('expected_monthly_volume')} />
          </label>
          <CurrencySelect label={t('volume.currency')} name="volume_currency" defaultValue={volume?.currency ?? currency} key={volume?.currency ?? currency} onSignedOut={onSignedOut} />
        </FieldBox>
      </fieldset>
      <p role="status">{step && t(step === 'uploading' ? 'uploading' : 'sending')}</p>
      <button type="submit" disabled={submit.isPending}>
        {t(activation.status === 'information_requested' ? 'resubmit' : 'submit')}
      </button>
    </form>
  );
}
