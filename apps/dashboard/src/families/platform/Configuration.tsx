import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useCatalogNames } from '../../shell/countries.js';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, errorText, QueryView, Scrollable } from '../../shell/components.js';
import { decimalsOf, formatAmount, LanguageContext, minorUnits, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { Features } from './ConfigurationFeatures.js';
import type { PageProps } from '../../shell/props.js';
import { configurationMessages } from './configuration.messages.js';

type CountryConfiguration = Answer<'get', '/api/v1/configuration/countries'>['data'][number];
type Capability = Answer<'get', '/api/v1/payment_capabilities'>['data'][number];

/** The countries and payment methods the merchant takes: country activations and payment capabilities. */
export function Configuration(props: PageProps) {
  const t = useMessages(configurationMessages);
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
  const t = useMessages(configurationMessages);
  const { language } = useContext(LanguageContext);
  const queries = useQueryClient();
  const [editing, setEditing] = useState<string | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'saved'; text: string } | null>(null);
  const countries = useQuery({
    queryKey: ['configuration-countries', environment],
    queryFn: async () => (await withSession(() => sika.get('/api/v1/configuration/countries'), onSignedOut)).data ?? [],
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
  const t = useMessages(configurationMessages);
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
              {t('rails.line', { method: methodName(choice), direction: t(`direction.${choice.direction}`) })} {state === 'state.available' ? t(state) : <Badge status={state === 'state.slow' ? 'degraded' : 'failed'}>{t(state)}</Badge>}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

function Methods({ environment, onSignedOut }: PageProps) {
  const t = useMessages(configurationMessages);
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [country, setCountry] = useState('SN');
  const key = ['payment-capabilities', environment];
  const capabilities = useQuery({
    queryKey: key,
    queryFn: async () => (await withSession(() => sika.get('/api/v1/payment_capabilities', { params: { query: { limit: 100 } } }), onSignedOut)).data ?? [],
  });
  const countries = useQuery({
    queryKey: ['configuration-countries', environment],
    queryFn: async () => (await withSession(() => sika.get('/api/v1/configuration/countries'), onSignedOut)).data ?? [],
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
