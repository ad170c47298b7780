import { useQuery } from '@tanstack/react-query';
import { QueryView, Scrollable } from '../../shell/components.js';
import { useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { configurationFeatureMessages } from './configurationFeatures.messages.js';

/** The feature flags that apply to the merchant (read-only: only Sika's operators set them, docs/configuration.md). */
export function Features({ environment, onSignedOut }: Pick<PageProps, 'environment' | 'onSignedOut'>) {
  const t = useMessages(configurationFeatureMessages);
  const flags = useQuery({ queryKey: ['feature-flags', environment], queryFn: () => withSession(() => sika.get('/api/v1/configuration/feature-flags'), onSignedOut) });
  return (
    <section aria-labelledby="features">
      <h2 id="features">{t('features')}</h2>
      <p className="help">{t('featuresHelp')}</p>
      <QueryView query={flags} isEmpty={(d) => !d.data?.length} empty={t('featuresNone')}>
        {(list) => (
          <Scrollable labelledBy="features">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('feature')}</th>
                  <th scope="col">{t('state')}</th>
                  <th scope="col">{t('scope')}</th>
                  <th scope="col">{t('description')}</th>
                </tr>
              </thead>
              <tbody>
                {(list.data ?? []).map((f) => (
                  <tr key={f.id}>
                    <th scope="row">
                      <code>{f.key}</code>
                    </th>
                    <td>{t(f.isEnabled ? 'on' : 'off')}</td>
                    <td>{t(f.merchantId ? 'yours' : 'everyone')}</td>
                    <td>{f.description ?? '—'}</td>
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
