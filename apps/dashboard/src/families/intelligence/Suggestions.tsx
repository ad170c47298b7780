import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { Link, QueryView } from '../../shell/components.js';
import { LanguageContext, useMessages } from '../../shell/i18n.js';
import type { PageName } from '../../shell/router.js';
import { sika, withSession } from '../../shell/session.js';
import { suggestionMessages } from './suggestions.messages.js';

type SuggestionPage = 'home' | 'payments' | 'payouts' | 'customers' | 'developers' | 'settings';

/**
 * The suggestions this dashboard knows, in its languages, with the page that acts on each
 * (docs/intelligence.md names them); one it does not know yet shows in the API's words.
 */
const KNOWN: Record<string, { page: PageName; en: [string, string]; fr: [string, string] }> = {
  failed_payments: { page: 'insights', en: ['Payments failed since yesterday', 'See which operators failed and why.'], fr: ['Des paiements ont échoué depuis hier', 'Voyez quels opérateurs ont échoué et pourquoi.'] },
  delayed_payouts: { page: 'insights', en: ['Payouts are late', 'The decisions say why each was delayed.'], fr: ['Des virements sont en retard', 'Les décisions disent pourquoi chacun a été retardé.'] },
  first_sandbox_payment: {
    page: 'paymentLinks',
    en: ['Take a first payment in sandbox', 'Create a payment link and pay it with a sandbox number.'],
    fr: ['Encaissez un premier paiement en test', 'Créez un lien de paiement et payez-le avec un numéro de test.'],
  },
  payout_destination: { page: 'payouts', en: ['Save a payout destination', 'Where your balance is paid out to.'], fr: ['Enregistrez une destination de virement', 'Là où votre solde est versé.'] },
  webhook_endpoint: {
    page: 'webhooks',
    en: ['Register a webhook endpoint', 'Hear about payments and payouts as they happen instead of polling.'],
    fr: ['Enregistrez un point de terminaison webhook', 'Soyez prévenu des paiements et des virements au moment où ils arrivent.'],
  },
  logo: { page: 'files', en: ['Upload your logo', 'Shown to payers on checkout and invoices.'], fr: ['Téléversez votre logo', 'Montré aux payeurs sur la page de paiement et les factures.'] },
  payment_links: {
    page: 'paymentLinks',
    en: ['Get paid with a link', 'A payment link takes payments without any code: share it by SMS or WhatsApp.'],
    fr: ['Faites-vous payer par un lien', 'Un lien de paiement encaisse sans code : partagez-le par SMS ou WhatsApp.'],
  },
  payout_engine: {
    page: 'payouts',
    en: ['Pay many people at once', 'Save recipients and send a payout batch from a CSV file.'],
    fr: ['Payez plusieurs personnes à la fois', 'Enregistrez des bénéficiaires et envoyez un lot de virements depuis un fichier CSV.'],
  },
};

/** What to do next (`GET /api/v1/context-intelligence/suggestions`), `page`'s own first; nothing when there is none. */
export function Suggestions({ environment, onSignedOut, page, headingLevel = 2 }: { environment: string; onSignedOut: () => void; page?: SuggestionPage; headingLevel?: 2 | 3 }) {
  const t = useMessages(suggestionMessages);
  const { language } = useContext(LanguageContext);
  const suggestions = useQuery({
    queryKey: ['suggestions', environment, page ?? null],
    queryFn: () => withSession(() => sika.get('/api/v1/context-intelligence/suggestions', { params: { query: page ? { page } : {} } }), onSignedOut),
  });
  if (suggestions.isSuccess && suggestions.data.data.length === 0) return null;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section aria-labelledby={`suggestions-${page ?? 'all'}`}>
      <Heading id={`suggestions-${page ?? 'all'}`}>{t('title')}</Heading>
      <QueryView query={suggestions}>
        {(list) => (
          <ul className="suggestions">
            {list.data.map((s) => {
              const known = KNOWN[s.id];
              const [title, detail] = known ? known[language] : [s.title, s.detail];
              return (
                <li key={s.id} className={`suggestion-${s.kind}`}>
                  <strong>{t(`kind.${s.kind}`)}:</strong> {title}
                  <p>
                    {detail}
                    {known && (
                      <>
                        {' '}
                        <Link to={known.page} aria-label={`${t('open')}: ${title}`}>
                          {t('open')}
                        </Link>
                      </>
                    )}
                  </p>
                </li>
              );
            })}
          </ul>
        )}
      </QueryView>
    </section>
  );
}
