import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Environment } from '../../../../clients/typescript/src/index.js';
import { NavigationContext } from './components.js';
import type { DashboardFamily, NavigationEntry } from './family.js';
import { LiveNotOpenBanner } from './activation.js';
import { Home } from './Home.js';
import { useT } from './i18n.js';
import { LanguagePicker } from './LanguagePicker.js';
import { Navigation } from './Navigation.js';
import { OrganizationSwitch, SwitchOrganizationContext } from './OrganizationSwitch.js';
import { useRoute } from './router.js';
import { setEnvironment, signOut, switchOrganization, withSession, type SignedInUser } from './session.js';

/**
 * The pages of a signed-in user: a header with the environment switch, the main navigation, then
 * the page; a page not (yet) among `pages` shows the home page. On a narrow screen the header is one
 * line (the brand, the environment's name, Menu) and Menu shows the navigation and the header's controls.
 */
export function Frame({ pages, navigation, user, onSignedOut, onSwitched }: { pages: DashboardFamily['pages']; navigation: NavigationEntry[]; user: SignedInUser; onSignedOut: () => void; onSwitched: (user: SignedInUser) => void }) {
  const t = useT();
  const queries = useQueryClient();
  // The environment is the address's (router.ts): /dashboard/… is sandbox, where a new session
  // starts, /dashboard/live/… live, kept by a reload or a shared link. The calls' X-Environment is
  // set before the page renders, so the switch, the queries' keys and the calls always agree.
  const [route, go, replace] = useRoute();
  const environment = route.environment;
  setEnvironment(environment);
  const [menuOpen, setMenuOpen] = useState(false);
  const Page = pages[route.page] ?? Home;
  const shown = pages[route.page] ? route.page : 'home';
  // The same page in the other environment (an object's page then says whether it is there).
  const switchTo = (e: Environment) => go(route.page, route.id, e);
  const moveTo = async (organizationId: string, persist: boolean) => {
    const moved = await withSession(() => switchOrganization(organizationId, persist), onSignedOut);
    queries.clear();
    // Another organization starts in sandbox, on the same page.
    replace(route.page, route.id, 'sandbox');
    onSwitched(moved);
  };
  // Signed out, the next sign-in in this tab is a new session: it starts in sandbox.
  const out = async () => {
    await signOut();
    replace(route.page, route.id, 'sandbox');
    onSignedOut();
  };
  return (
    <NavigationContext.Provider value={go}>
      <SwitchOrganizationContext.Provider value={moveTo}>
        <header className={`top ${environment}`}>
          <span className="brand">Sika</span>
          {/* On a phone the switch is behind the Menu button: the header still says which environment this is. */}
          <span className="environment-now">{t(`env.${environment}`)}</span>
          <button type="button" className="menu-toggle secondary" aria-expanded={menuOpen} aria-controls="main-nav header-controls" onClick={() => setMenuOpen(!menuOpen)}>
            {t('nav.menu')}
          </button>
          {/* The environment, the language and the account: in the header of a wide screen, behind Menu on a narrow one. */}
          <div id="header-controls" className={menuOpen ? 'header-controls open' : 'header-controls'}>
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
          </div>
        </header>
        {environment === 'sandbox' && (
          <p className="banner" role="status">
            {t('env.sandboxBanner')}
          </p>
        )}
        {/* Live's banner until live opens; the Go live page says it itself. */}
        {environment === 'live' && shown !== 'goLive' && <LiveNotOpenBanner onSignedOut={onSignedOut} />}
        <div className="layout">
          <Navigation entries={navigation} current={shown} open={menuOpen} onFollow={() => setMenuOpen(false)} />
          <Page environment={environment} onSignedOut={onSignedOut} id={route.id} />
        </div>
      </SwitchOrganizationContext.Provider>
    </NavigationContext.Provider>
  );
}
