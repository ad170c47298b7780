import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, QueryView, Scrollable, useAction } from '../../shell/components.js';
import { destinationLabel, type SavedDestination } from '../../shell/destinations.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { CountrySelect, useCatalogNames, useCountry, WalletFields } from '../../shell/countries.js';
import type { PageProps } from '../../shell/props.js';
import { settingsDestinationMessages } from './settingsDestinations.messages.js';

/** The environment's saved mobile money destinations: listed with when each can be used, added, removed. */
export function SavedDestinations({ environment, onSignedOut }: Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(settingsDestinationMessages);
  const names = useCatalogNames(onSignedOut);
  const { language } = useContext(LanguageContext);
  const [country, setCountry] = useState('SN');
  const [added, setAdded] = useState(false);
  const settings = useQuery({
    queryKey: ['payout-settings', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/settings/payouts'), onSignedOut),
  });
  const { countries, chosen, operators } = useCountry('payout', country, onSignedOut);
  const { action: act, error } = useAction(onSignedOut, [['payout-settings', environment]]);

  const add = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    setAdded(false);
    act.mutate(async () => {
      await sika.post('/api/v1/merchant/settings/payouts/destinations', {
        body: { type: 'mobile_money', currency: chosen?.currency ?? 'xof', country, operator: String(data.get('operator')), msisdn: String(data.get('msisdn')).trim() },
      });
      setAdded(true);
      form.reset();
    });
  };
  const remove = (d: SavedDestination) => {
    if (!window.confirm(t('removeConfirm', { label: destinationLabel(d) }))) return;
    setAdded(false);
    act.mutate(() => sika.delete('/api/v1/merchant/settings/payouts/destinations/{id}', { params: { path: { id: d.id } } }));
  };
  const saved = settings.data?.destinations ?? [];
  return (
    <section aria-labelledby="saved-destinations">
      <h2 id="saved-destinations">{t('title')}</h2>
      <p className="help">{t('help')}</p>
      <ErrorMessage text={error} />
      {added && <p role="status">{t('added')}</p>}
      <QueryView query={settings} isEmpty={() => saved.length === 0} empty={t('none')}>
        {() => (
          <Scrollable labelledBy="saved-destinations">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('destination')}</th>
                  <th scope="col">{t('operator')}</th>
                  <th scope="col">{t('usableFrom')}</th>
                  <th scope="col">{t('actions')}</th>
                </tr>
              </thead>
              <tbody>
                {saved.map((d) => (
                  <tr key={d.id}>
                    <th scope="row">{destinationLabel(d)}</th>
                    <td>{names.operator(d.destination?.operator) || '—'}</td>
                    <td>{formatWhen(language, d.usable_from)}</td>
                    <td>
                      <button type="button" className="danger" disabled={act.isPending} aria-label={`${t('remove')}: ${destinationLabel(d)}`} onClick={() => remove(d)}>
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
      <form className="inline-form" onSubmit={add} aria-label={t('add')}>
        <CountrySelect label={t('country')} countries={countries} value={country} onChange={setCountry} />
        <WalletFields labels={{ operator: t('operator'), msisdn: t('msisdn') }} operators={operators} callingCode={chosen?.calling_code} />
        <button type="submit" disabled={act.isPending}>
          {t('add')}
        </button>
      </form>
    </section>
  );
}
