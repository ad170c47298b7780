import { Link } from './components.js';
import { useT, type MessageKey } from './i18n.js';
import type { PageName } from './router.js';

interface Entry {
  page: PageName;
  label: MessageKey;
  /** Pages under this entry, which mark it current (a payout's page marks Payouts). */
  under?: PageName[];
}

/** The main navigation by group; an entry whose page is not built is left out. */
const GROUPS: { label: MessageKey; entries: Entry[] }[] = [
  {
    label: 'nav.group.money',
    entries: [
      { page: 'home', label: 'nav.home' },
      { page: 'payments', label: 'nav.payments', under: ['payment'] },
      { page: 'paymentLinks', label: 'nav.paymentLinks' },
      { page: 'checkout', label: 'nav.checkout', under: ['checkoutSession'] },
      { page: 'payouts', label: 'nav.payouts', under: ['payout', 'payoutBatches', 'payoutBatch'] },
      { page: 'funding', label: 'nav.funding', under: ['fundingCampaign'] },
      { page: 'escrow', label: 'nav.escrow', under: ['escrowContract'] },
      { page: 'marketplace', label: 'nav.marketplace', under: ['marketplaceOrder', 'marketplaceSeller'] },
    ],
  },
  {
    label: 'nav.group.billing',
    entries: [
      { page: 'customers', label: 'nav.customers', under: ['customer'] },
      { page: 'products', label: 'nav.products' },
      { page: 'subscriptions', label: 'nav.subscriptions', under: ['subscription'] },
      { page: 'invoices', label: 'nav.invoices', under: ['invoice'] },
    ],
  },
  {
    label: 'nav.group.finance',
    entries: [
      { page: 'reports', label: 'nav.reports' },
      { page: 'insights', label: 'nav.insights' },
    ],
  },
  {
    label: 'nav.group.build',
    entries: [
      { page: 'developers', label: 'nav.developers' },
      { page: 'webhooks', label: 'nav.webhooks', under: ['webhookEndpoint'] },
      { page: 'files', label: 'nav.files' },
      { page: 'automations', label: 'nav.automations', under: ['automation'] },
      { page: 'templates', label: 'nav.templates', under: ['template'] },
    ],
  },
  {
    label: 'nav.group.account',
    entries: [
      { page: 'team', label: 'nav.team' },
      { page: 'settings', label: 'nav.settings', under: ['settingsSection'] },
      { page: 'configuration', label: 'nav.configuration' },
      { page: 'help', label: 'nav.help' },
    ],
  },
];

/**
 * The sidebar of a wide screen; on a narrow one the header's Menu button shows it (`open`), and
 * following a link hides it again.
 */
export function Navigation({ current, built, open, onFollow }: { current: PageName; built: (page: PageName) => boolean; open: boolean; onFollow: () => void }) {
  const t = useT();
  return (
    <nav id="main-nav" className={open ? 'main-nav open' : 'main-nav'} aria-label={t('nav.main')}>
      {GROUPS.map((group) => {
        const entries = group.entries.filter((e) => built(e.page));
        if (entries.length === 0) return null;
        const id = `nav-${group.label}`.replace(/\W+/g, '-');
        return (
          <div key={group.label}>
            <p className="nav-group" id={id}>
              {t(group.label)}
            </p>
            <ul aria-labelledby={id}>
              {entries.map((e) => (
                <li key={e.page}>
                  <Link to={e.page} aria-current={current === e.page || e.under?.includes(current) ? 'page' : undefined} onClick={onFollow}>
                    {t(e.label)}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}
