import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Environment } from '../../../clients/typescript/src/index.js';
import { LanguageContext, preferredLanguage, useT, type Language } from './shell/i18n.js';
import { LanguagePicker } from './shell/LanguagePicker.js';
import { Configuration } from './families/platform/Configuration.js';
import { Customer } from './families/billing/Customer.js';
import { Customers } from './families/billing/Customers.js';
import { Invoice } from './families/billing/Invoice.js';
import { Invoices } from './families/billing/Invoices.js';
import { Products } from './families/billing/Products.js';
import { Subscription } from './families/billing/Subscription.js';
import { Subscriptions } from './families/billing/Subscriptions.js';
import { Developers } from './families/merchants/Developers.js';
import { Home } from './shell/Home.js';
import { PaymentLinks } from './families/checkout/PaymentLinks.js';
import { Checkout } from './families/checkout/Checkout.js';
import { CheckoutSession } from './families/checkout/CheckoutSession.js';
import { Escrow } from './families/escrow/Escrow.js';
import { EscrowContract } from './families/escrow/EscrowContract.js';
import { Files } from './families/assets/Files.js';
import { Funding } from './families/funding/Funding.js';
import { FundingCampaign } from './families/funding/FundingCampaign.js';
import { Insights } from './families/intelligence/Insights.js';
import { Marketplace } from './families/marketplace/Marketplace.js';
import { MarketplaceOrder } from './families/marketplace/MarketplaceOrder.js';
import { MarketplaceSeller } from './families/marketplace/MarketplaceSeller.js';
import { Payment } from './families/payments/Payment.js';
import { Payments } from './families/payments/Payments.js';
import { PayoutPage } from './families/payouts/Payout.js';
import { Payouts } from './families/payouts/Payouts.js';
import { PayoutBatches } from './families/payout-engine/PayoutBatches.js';
import { PayoutBatchPage } from './families/payout-engine/PayoutBatch.js';
import { Reports } from './families/ledger/Reports.js';
import { NavigationContext } from './shell/components.js';
import { Navigation } from './shell/Navigation.js';
import { useRoute, type PageName } from './shell/router.js';
import { Settings } from './families/accounts/Settings.js';
import { Help } from './families/support/Help.js';
import { Template } from './families/templates/Template.js';
import { Templates } from './families/templates/Templates.js';
import { Team } from './families/accounts/Team.js';
import { Webhooks } from './families/webhooks/Webhooks.js';
import { WebhookEndpoint } from './families/webhooks/WebhookEndpoint.js';
import { Automation } from './families/automations/Automation.js';
import { Automations } from './families/automations/Automations.js';
import { AcceptInvitation } from './families/accounts/AcceptInvitation.js';
import { SignIn } from './families/accounts/SignIn.js';
import { SignUp } from './families/accounts/SignUp.js';
import { ForgotPassword, ResetPassword } from './families/accounts/PasswordReset.js';
import { MagicLink } from './families/accounts/MagicLink.js';
import { EmailChange } from './families/accounts/EmailChange.js';
import { GoogleConnectReturn, GoogleSignInReturn } from './families/accounts/GoogleReturn.js';
import { OrganizationSwitch, SwitchOrganizationContext } from './shell/OrganizationSwitch.js';
import { resume, setEnvironment, signOut, switchOrganization, withSession, type SignedInUser } from './shell/session.js';
import type { PageProps } from './shell/props.js';

/** The pages of a signed-in user; a page not (yet) here shows the home page. */
const PAGES: Partial<Record<PageName, (props: PageProps) => React.JSX.Element>> = {
  home: Home,
  paymentLinks: PaymentLinks,
  checkout: Checkout,
  checkoutSession: CheckoutSession,
  payouts: Payouts,
  developers: Developers,
  reports: Reports,
  insights: Insights,
  files: Files,
  configuration: Configuration,
  funding: Funding,
  fundingCampaign: FundingCampaign,
  escrow: Escrow,
  escrowContract: EscrowContract,
  marketplace: Marketplace,
  marketplaceOrder: MarketplaceOrder,
  marketplaceSeller: MarketplaceSeller,
  customers: Customers,
  customer: Customer,
  products: Products,
  subscriptions: Subscriptions,
  subscription: Subscription,
  invoices: Invoices,
  invoice: Invoice,
  team: Team,
  settings: Settings,
  settingsSection: Settings,
  payments: Payments,
  payment: Payment,
  help: Help,
  webhooks: Webhooks,
  webhookEndpoint: WebhookEndpoint,
  automations: Automations,
  automation: Automation,
  emailChange: EmailChange,
  payout: PayoutPage,
  payoutBatches: PayoutBatches,
  payoutBatch: PayoutBatchPage,
  templates: Templates,
  template: Template,
  google: GoogleConnectReturn,
};

/** The signed-in user (null: signed out; undefined: still finding out from the cookie). */
export function App() {
  const [language, setLanguageState] = useState<Language>(preferredLanguage);
  const [user, setUser] = useState<SignedInUser | null | undefined>(undefined);
  const queries = useQueryClient();
  // Signed out (by the user, an ended session or an expired one): nothing of this user stays cached for the next.
  const signedOut = () => {
    queries.clear();
    setUser(null);
  };
  const setLanguage = (l: Language) => {
    localStorage.setItem('sika.language', l);
    setLanguageState(l);
  };
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  useEffect(() => {
    resume().then(setUser, () => setUser(null));
  }, []);

  return (
    <LanguageContext.Provider value={{ language, setLanguage }}>
      {user === undefined ? (
        <Loading />
      ) : user === null ? (
        <SignedOut onSignedIn={setUser} />
      ) : (
        // A move to another organization starts its shell afresh (in sandbox, on the same page).
        <Shell key={user.organizationId} user={user} onSignedOut={signedOut} onSwitched={setUser} />
      )}
    </LanguageContext.Provider>
  );
}

/** The pages of a signed-out visitor, by address, following links between them without a reload; any other address asks to sign in. */
function SignedOut({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const [route, go] = useRoute();
  const page = (() => {
    switch (route.page) {
      case 'invitation':
        return <AcceptInvitation onSignedIn={onSignedIn} />;
      case 'signUp':
        return <SignUp onSignedIn={onSignedIn} />;
      case 'forgotPassword':
        return <ForgotPassword />;
      case 'resetPassword':
        return <ResetPassword />;
      case 'magicLink':
        return <MagicLink onSignedIn={onSignedIn} />;
      case 'emailChange':
        return <EmailChange />;
      case 'google':
        return <GoogleSignInReturn onSignedIn={onSignedIn} />;
      default:
        return <SignIn onSignedIn={onSignedIn} />;
    }
  })();
  return <NavigationContext.Provider value={go}>{page}</NavigationContext.Provider>;
}

function Loading() {
  const t = useT();
  return (
    <main className="centered" aria-busy="true">
      <p>{t('loading')}</p>
    </main>
  );
}

/** The pages of a signed-in user: a header with the environment switch, then the page. */
function Shell({ user, onSignedOut, onSwitched }: { user: SignedInUser; onSignedOut: () => void; onSwitched: (user: SignedInUser) => void }) {
  const t = useT();
  const queries = useQueryClient();
  // Every session starts in sandbox: the switch and the calls' X-Environment agree from the start.
  const [environment, setEnvironmentState] = useState<Environment>(() => {
    setEnvironment('sandbox');
    return 'sandbox';
  });
  const [route, go] = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const Page = PAGES[route.page] ?? Home;
  const shown = PAGES[route.page] ? route.page : 'home';
  const switchTo = (e: Environment) => {
    setEnvironment(e);
    setEnvironmentState(e);
  };
  const moveTo = async (organizationId: string, persist: boolean) => {
    const moved = await withSession(() => switchOrganization(organizationId, persist), onSignedOut);
    queries.clear();
    onSwitched(moved);
  };
  const out = async () => {
    await signOut();
    onSignedOut();
  };
  return (
    <NavigationContext.Provider value={go}>
      <SwitchOrganizationContext.Provider value={moveTo}>
        <header className={`top ${environment}`}>
          <span className="brand">Sika</span>
          <button type="button" className="menu-toggle secondary" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
            {t('nav.menu')}
          </button>
          <fieldset className="environment">
            <legend>{t('env.label')}</legend>
            {(['sandbox', 'live'] as const).map((e) => (
              <label key={e}>
                <input type="radio" name="environment" value={e} checked={environment === e} onChange={() => switchTo(e)} /> {t(`env.${e}`)}
              </label>
            ))}
          </fieldset>
          <LanguagePicker />
          <OrganizationSwitch current={user.organizationId} onSignedOut={onSignedOut} />
          <span className="who">{user.email}</span>
          <button type="button" onClick={() => void out()}>
            {t('nav.signOut')}
          </button>
        </header>
        {environment === 'sandbox' && (
          <p className="banner" role="status">
            {t('env.sandboxBanner')}
          </p>
        )}
        <div className="layout">
          <Navigation current={shown} built={(page) => PAGES[page] !== undefined} open={menuOpen} onFollow={() => setMenuOpen(false)} />
          <Page environment={environment} onSignedOut={onSignedOut} id={route.id} />
        </div>
      </SwitchOrganizationContext.Provider>
    </NavigationContext.Provider>
  );
}
