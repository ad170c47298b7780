import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useCatalogNames } from '../../shell/countries.js';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, errorText, QueryView, Scrollable } from '../../shell/components.js';
import { decimalsOf, formatAmount, LanguageContext, minorUnits, useMessages, type Messages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { Features } from './ConfigurationFeatures.js';
import type { PageProps } from '../../shell/props.js';

const messages: Messages<
  | 'title'
  | 'countries'
  | 'countries.help'
  | 'country'
  | 'currency'
  | 'operators'
  | 'activation'
  | 'setBySika'
  | 'default'
  | 'payIn'
  | 'payout'
  | 'on'
  | 'off'
  | 'bounds'
  | 'configure'
  | 'configureOf'
  | 'minAmount'
  | 'maxAmount'
  | 'optional'
  | 'save'
  | 'reset'
  | 'resetOf'
  | 'saved'
  | 'methods'
  | 'methods.help'
  | 'methods.none'
  | 'method'
  | 'method.mobile_money'
  | 'method.card'
  | 'method.bank'
  | 'operator'
  | 'operator.any'
  | 'enabled'
  | 'status'
  | 'status.active'
  | 'status.suspended'
  | 'addMethod'
  | 'add'
  | 'enable'
  | 'disable'
  | 'suspend'
  | 'resume'
  | 'remove'
  | 'reason'
  | 'actions'
  | 'rails'
  | 'rails.help'
  | 'rails.of'
  | 'rails.line'
  | 'rails.summary'
  | 'rails.summaryNone'
  | 'state.available'
  | 'state.slow'
  | 'state.notYet'
  | 'state.paused'
  | 'direction.collect'
  | 'direction.payout'
> = {
  en: {
    title: 'Configuration',
    countries: 'Countries',
    'countries.help': 'Where you take payments and send payouts. A country you have not configured follows the catalog: every operator it lists, any amount within the operators’ limits.',
    country: 'Country',
    currency: 'Currency',
    operators: 'Operators',
    activation: 'Your setting',
    setBySika: 'Set by Sika for your account: ask support to change it.',
    default: 'Catalog default',
    payIn: 'Payments in',
    payout: 'Payouts',
    on: 'on',
    off: 'off',
    bounds: 'Amounts {min} to {max}',
    configure: 'Configure',
    configureOf: 'Configure {country}',
    minAmount: 'Smallest amount',
    maxAmount: 'Largest amount',
    optional: 'optional',
    save: 'Save',
    reset: 'Back to the catalog',
    resetOf: 'Back to the catalog: {country}',
    saved: '{country} saved.',
    methods: 'Payment methods',
    'methods.help': 'Turn a method on or off in a country, for every operator or one; suspend it with a reason to refuse it until you resume it.',
    'methods.none': 'Every method follows the catalog in this environment.',
    method: 'Method',
    'method.mobile_money': 'Mobile money',
    'method.card': 'Card',
    'method.bank': 'Bank',
    operator: 'Operator',
    'operator.any': 'Every operator',
    enabled: 'Enabled',
    status: 'Status',
    'status.active': 'Active',
    'status.suspended': 'Suspended',
    addMethod: 'Set a payment method',
    add: 'Save the method',
    enable: 'Enable',
    disable: 'Disable',
    suspend: 'Suspend',
    resume: 'Resume',
    remove: 'Remove',
    reason: 'Reason for suspending',
    actions: 'Actions',
    rails: 'In live',
    'rails.help': 'What each method does in live now: available; not available in live yet (Sika has not opened it for live payments there); or paused by the platform (for a while: payments and payouts resume by themselves). Open a country for each method’s payments in and payouts.',
    'rails.of': 'In live: {country}',
    'rails.line': '{method}, {direction}:',
    'rails.summary': 'Available in live: {methods}',
    'rails.summaryNone': 'Not available in live yet',
    'state.available': 'available',
    'state.slow': 'available, slower than usual',
    'state.notYet': 'not available in live yet',
    'state.paused': 'paused by the platform',
    'direction.collect': 'payments in',
    'direction.payout': 'payouts',
  },
  fr: {
    title: 'Configuration',
    countries: 'Pays',
    'countries.help': 'Là où vous encaissez et envoyez des virements. Un pays que vous n’avez pas configuré suit le catalogue : tous ses opérateurs, tout montant dans leurs limites.',
    country: 'Pays',
    currency: 'Devise',
    operators: 'Opérateurs',
    activation: 'Votre réglage',
    setBySika: 'Réglé par Sika pour votre compte : demandez au support de le changer.',
    default: 'Catalogue par défaut',
    payIn: 'Encaissements',
    payout: 'Virements',
    on: 'activés',
    off: 'désactivés',
    bounds: 'Montants de {min} à {max}',
    configure: 'Configurer',
    configureOf: 'Configurer {country}',
    minAmount: 'Montant minimum',
    maxAmount: 'Montant maximum',
    optional: 'facultatif',
    save: 'Enregistrer',
    reset: 'Revenir au catalogue',
    resetOf: 'Revenir au catalogue : {country}',
    saved: '{country} enregistré.',
    methods: 'Moyens de paiement',
    'methods.help': 'Activez ou désactivez un moyen dans un pays, pour tous les opérateurs ou un seul ; suspendez-le avec une raison pour le refuser jusqu’à sa reprise.',
    'methods.none': 'Tous les moyens suivent le catalogue dans cet environnement.',
    method: 'Moyen',
    'method.mobile_money': 'Mobile money',
    'method.card': 'Carte',
    'method.bank': 'Banque',
    operator: 'Opérateur',
    'operator.any': 'Tous les opérateurs',
    enabled: 'Activé',
    status: 'Statut',
    'status.active': 'Actif',
    'status.suspended': 'Suspendu',
    addMethod: 'Régler un moyen de paiement',
    add: 'Enregistrer le moyen',
    enable: 'Activer',
    disable: 'Désactiver',
    suspend: 'Suspendre',
    resume: 'Reprendre',
    remove: 'Retirer',
    reason: 'Raison de la suspension',
    actions: 'Actions',
    rails: 'En live',
    'rails.help': 'Ce que fait chaque moyen en live maintenant : disponible ; pas encore disponible en live (Sika ne l’a pas encore ouvert aux paiements réels dans ce pays) ; ou mis en pause par la plateforme (pour un temps : encaissements et virements reprennent d’eux-mêmes). Ouvrez un pays pour voir les encaissements et virements de chaque moyen.',
    'rails.of': 'En live : {country}',
    'rails.line': '{method}, {direction} :',
    'rails.summary': 'Disponible en live : {methods}',
    'rails.summaryNone': 'Pas encore disponible en live',
    'state.available': 'disponible',
    'state.slow': 'disponible, plus lent que d’habitude',
    'state.notYet': 'pas encore disponible en live',
    'state.paused': 'mis en pause par la plateforme',
    'direction.collect': 'encaissements',
    'direction.payout': 'virements',
  },
};

type CountryConfiguration = Answer<'get', '/api/v1/configuration/countries'>['data'][number];
type Capability = Answer<'get', '/api/v1/payment_capabilities'>['data'][number];

/** The countries and payment methods the merchant takes: country activations and payment capabilities. */
export function Configuration(props: PageProps) {
  const t = useMessages(messages);
  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <Countries {...props} />
      <Methods {...props} />
      <Features environment={props.environment} onSignedOut={props.onSignedOut} />
    </main>
  );
}

function Countries({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'saved'; text: string } | null>(null);
  const countries = useQuery({
    queryKey: ['configuration-countries', environment],
    queryFn: async () => ((await withSession(() => sika.get('/api/v1/configuration/countries'), onSignedOut)).data ?? []),
  });
  const done = (country: CountryConfiguration) => {
    setEditing(null);
    setMessage({ kind: 'saved', text: t('saved', { country: country.name }) });
    void queries.invalidateQueries({ queryKey: ['configuration-countries', environment] });
  };
  const save = useMutation({
    mutationFn: ({ country, form }: { country: CountryConfiguration; form: FormData }) => {
      const amount = (name: string) => (String(form.get(name) ?? '') === '' ? null : minorUnits(Number(form.get(name)), country.currencyIso));
      const settings = { enabledForPayIn: form.get('payIn') === 'on', enabledForPayout: form.get('payout') === 'on', minAmount: amount('min'), maxAmount: amount('max') };
      return country.activation
        ? sika.put('/api/v1/configuration/activations/{id}', { params: { path: { id: country.activation.id } }, body: settings })
        : sika.post('/api/v1/configuration/activations', { body: { countryCode: country.countryCode, currencyIso: country.currencyIso, ...settings } });
    },
    onSuccess: (_answer, { country }) => done(country),
    onError: (err) => setMessage({ kind: 'error', text: errorText(err, t('error.generic')) }),
  });
  const reset = useMutation({
    mutationFn: (country: CountryConfiguration) => sika.delete('/api/v1/configuration/activations/{id}', { params: { path: { id: country.activation!.id } } }),
    onSuccess: (_answer, country) => done(country),
    onError: (err) => setMessage({ kind: 'error', text: errorText(err, t('error.generic')) }),
  });
  const money = (minor: number | null, currency: string) => (minor === null ? '—' : formatAmount(language, minor, currency));
  const major = (minor: number | null, currency: string) => (minor === null ? '' : String(minor / 10 ** decimalsOf(currency)));

  return (
    <section aria-labelledby="countries">
      <h2 id="countries">{t('countries')}</h2>
      <p>{t('countries.help')}</p>
      <p>{t('rails.help')}</p>
      {message && (
        <p className={message.kind === 'error' ? 'error' : 'panel'} role={message.kind === 'error' ? 'alert' : 'status'}>
          {message.text}
        </p>
      )}
      <QueryView query={countries}>
        {(list) => (
          <Scrollable labelledBy="countries">
            <table className="countries">
              <thead>
                <tr>
                  <th scope="col">{t('country')}</th>
                  <th scope="col">{t('currency')}</th>
                  <th scope="col">{t('operators')}</th>
                  <th scope="col">{t('rails')}</th>
                  <th scope="col">{t('activation')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {list.map((c) => {
                  const a = c.activation;
                  // The operator's activations are not the merchant's to change (the API answers IKW-CFG-005).
                  const operatorSet = a?.setBy === 'operator';
                  return (
                    <tr key={c.countryCode}>
                      <th scope="row">{c.name}</th>
                      <td>{c.currencyIso.toUpperCase()}</td>
                      <td>{c.operators.map((o) => o.name).join(', ')}</td>
                      <td>
                        <LiveRails country={c} />
                      </td>
                      <td>
                        {a ? (
                          <>
                            {t('payIn')} {a.enabledForPayIn ? t('on') : t('off')} · {t('payout')} {a.enabledForPayout ? t('on') : t('off')}
                            {(a.minAmount !== null || a.maxAmount !== null) && <> · {t('bounds', { min: money(a.minAmount, c.currencyIso), max: money(a.maxAmount, c.currencyIso) })}</>}
                          </>
                        ) : (
                          t('default')
                        )}
                        {operatorSet && <p className="help">{t('setBySika')}</p>}
                        {editing === c.countryCode && (
                          <form
                            className="inline-form"
                            aria-label={t('configureOf', { country: c.name })}
                            onSubmit={(e: FormEvent<HTMLFormElement>) => {
                              e.preventDefault();
                              setMessage(null);
                              save.mutate({ country: c, form: new FormData(e.currentTarget) });
                            }}
                          >
                            <label className="inline">
                              <input name="payIn" type="checkbox" defaultChecked={a?.enabledForPayIn ?? true} /> {t('payIn')}
                            </label>
                            <label className="inline">
                              <input name="payout" type="checkbox" defaultChecked={a?.enabledForPayout ?? true} /> {t('payout')}
                            </label>
                            <label>
                              {t('minAmount')} ({t('optional')})
                              <input name="min" type="number" min="0" step="any" defaultValue={major(a?.minAmount ?? null, c.currencyIso)} />
                            </label>
                            <label>
                              {t('maxAmount')} ({t('optional')})
                              <input name="max" type="number" min="0" step="any" defaultValue={major(a?.maxAmount ?? null, c.currencyIso)} />
                            </label>
                            <button type="submit" disabled={save.isPending}>
                              {t('save')}
                            </button>
                            <button type="button" className="secondary" onClick={() => setEditing(null)}>
                              {t('action.cancel')}
                            </button>
                          </form>
                        )}
                      </td>
                      <td className="actions">
                        {editing !== c.countryCode && !operatorSet && (
                          <button type="button" className="secondary" aria-label={t('configureOf', { country: c.name })} onClick={() => setEditing(c.countryCode)}>
                            {t('configure')}
                          </button>
                        )}
                        {a && !operatorSet && (
                          <button type="button" className="secondary" aria-label={t('resetOf', { country: c.name })} disabled={reset.isPending} onClick={() => reset.mutate(c)}>
                            {t('reset')}
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}

/** What a method does in live, in a merchant's words (rails and error codes are the operator's, not the merchant's). */
function liveState(choice: CountryConfiguration['liveRails'][number]): 'state.available' | 'state.slow' | 'state.notYet' | 'state.paused' {
  if (!choice.rail) return 'state.notYet';
  if (choice.availability === 'unavailable') return 'state.paused';
  return choice.availability === 'degraded' ? 'state.slow' : 'state.available';
}

/**
 * What each method of a country does in live now (the API's `liveRails`), in words: one line
 * naming the methods available, each method's payments in and payouts folded under it. Which rail
 * carries a method and why one is refused are the operator's business (docs/dashboard.md).
 */
function LiveRails({ country }: { country: CountryConfiguration }) {
  const t = useMessages(messages);
  const operatorName = (code: string | null) => country.operators.find((o) => o.code === code)?.name ?? code ?? '';
  const methodName = (choice: CountryConfiguration['liveRails'][number]) => (choice.method === 'mobile_money' ? operatorName(choice.operator) : t(`method.${choice.method}`));
  const available = [...new Set(country.liveRails.filter((c) => liveState(c) === 'state.available' || liveState(c) === 'state.slow').map(methodName))];
  return (
    <details className="rails">
      <summary>{available.length ? t('rails.summary', { methods: available.join(', ') }) : t('rails.summaryNone')}</summary>
      <ul aria-label={t('rails.of', { country: country.name })}>
        {country.liveRails.map((choice) => {
          const state = liveState(choice);
          return (
            <li key={`${choice.method}-${choice.operator ?? ''}-${choice.direction}`}>
              {t('rails.line', { method: methodName(choice), direction: t(`direction.${choice.direction}`) })}{' '}
              {state === 'state.available' ? t(state) : <Badge status={state === 'state.slow' ? 'degraded' : 'failed'}>{t(state)}</Badge>}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

function Methods({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [country, setCountry] = useState('SN');
  const key = ['payment-capabilities', environment];
  const capabilities = useQuery({
    queryKey: key,
    queryFn: async () => ((await withSession(() => sika.get('/api/v1/payment_capabilities', { params: { query: { limit: 100 } } }), onSignedOut)).data ?? []),
  });
  const countries = useQuery({
    queryKey: ['configuration-countries', environment],
    queryFn: async () => ((await withSession(() => sika.get('/api/v1/configuration/countries'), onSignedOut)).data ?? []),
  });
  const chosen = countries.data?.find((c) => c.countryCode === country);
  const changed = { onSuccess: () => void queries.invalidateQueries({ queryKey: key }), onError: (err: unknown) => setError(errorText(err, t('error.generic'))) };
  const create = useMutation({
    mutationFn: (form: FormData) =>
      sika.post('/api/v1/payment_capabilities', {
        body: {
          country,
          currency: chosen?.currencyIso ?? 'xof',
          payment_method_type: form.get('method') as Capability['payment_method_type'],
          operator: String(form.get('operator') ?? '') || null,
          is_enabled: form.get('enabled') === 'on',
        },
      }),
    ...changed,
  });
  const setEnabled = useMutation({ mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => sika.post('/api/v1/payment_capabilities/{id}', { params: { path: { id } }, body: { is_enabled: enabled } }), ...changed });
  const suspend = useMutation({ mutationFn: ({ id, reason }: { id: string; reason: string }) => sika.post('/api/v1/payment_capabilities/{id}/suspend', { params: { path: { id } }, body: { reason } }), ...changed });
  const resume = useMutation({ mutationFn: (id: string) => sika.post('/api/v1/payment_capabilities/{id}/resume', { params: { path: { id } } }), ...changed });
  const remove = useMutation({ mutationFn: (id: string) => sika.delete('/api/v1/payment_capabilities/{id}', { params: { path: { id } } }), ...changed });
  const names = useCatalogNames(onSignedOut);
  const nameOf = (c: Capability) => `${t(`method.${c.payment_method_type}`)} ${names.country(c.country)}${c.operator ? ` ${names.operator(c.operator)}` : ''}`;

  return (
    <section aria-labelledby="methods">
      <h2 id="methods">{t('methods')}</h2>
      <p>{t('methods.help')}</p>
      <ErrorMessage text={error} />
      <form
        className="inline-form"
        aria-label={t('addMethod')}
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          setError(null);
          create.mutate(new FormData(e.currentTarget));
        }}
      >
        <label>
          {t('country')}
          <select value={country} onChange={(e) => setCountry(e.target.value)}>
            {(countries.data ?? []).map((c) => (
              <option key={c.countryCode} value={c.countryCode}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('method')}
          <select name="method" defaultValue="mobile_money">
            {(['mobile_money', 'card', 'bank'] as const).map((m) => (
              <option key={m} value={m}>
                {t(`method.${m}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('operator')}
          <select name="operator" defaultValue="">
            <option value="">{t('operator.any')}</option>
            {(chosen?.operators ?? []).map((o) => (
              <option key={o.code} value={o.code}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input name="enabled" type="checkbox" defaultChecked /> {t('enabled')}
        </label>
        <button type="submit" disabled={create.isPending}>
          {t('add')}
        </button>
      </form>
      <QueryView query={capabilities} isEmpty={(c) => c.length === 0} empty={t('methods.none')}>
        {(list) => (
          <Scrollable labelledBy="methods">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('method')}</th>
                  <th scope="col">{t('country')}</th>
                  <th scope="col">{t('operator')}</th>
                  <th scope="col">{t('enabled')}</th>
                  <th scope="col">{t('status')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {list.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">{t(`method.${c.payment_method_type}`)}</th>
                    <td>{names.country(c.country)}</td>
                    <td>{c.operator ? names.operator(c.operator) : t('operator.any')}</td>
                    <td>{c.is_enabled ? t('on') : t('off')}</td>
                    <td>
                      <Badge status={c.status}>{t(`status.${c.status}`)}</Badge>
                      {c.suspension_reason ? ` (${c.suspension_reason})` : ''}
                    </td>
                    <td className="actions">
                      <button type="button" className="secondary" aria-label={`${c.is_enabled ? t('disable') : t('enable')}: ${nameOf(c)}`} onClick={() => setEnabled.mutate({ id: c.id, enabled: !c.is_enabled })}>
                        {c.is_enabled ? t('disable') : t('enable')}
                      </button>
                      {c.status === 'active' ? (
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`${t('suspend')}: ${nameOf(c)}`}
                          onClick={() => {
                            const reason = window.prompt(t('reason'));
                            if (reason) suspend.mutate({ id: c.id, reason });
                          }}
                        >
                          {t('suspend')}
                        </button>
                      ) : (
                        <button type="button" className="secondary" aria-label={`${t('resume')}: ${nameOf(c)}`} onClick={() => resume.mutate(c.id)}>
                          {t('resume')}
                        </button>
                      )}
                      <button type="button" className="secondary" aria-label={`${t('remove')}: ${nameOf(c)}`} onClick={() => remove.mutate(c.id)}>
                        {t('remove')}
                      </button>
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
