import { useState } from 'react';
import { LanguagePicker } from '../../src/shell/LanguagePicker.js';
import { ConsoleNavigation, Link } from './components.js';
import { useRoute } from './router.js';
import { CONSOLE_NAVIGATION, CONSOLE_PAGES, offeredTo } from './sections.js';
import { signOut, type SignedInOperator } from './session.js';
import { useConsoleT } from './words.js';

/**
 * The signed-in console: a header (who is signed in, with their role; the language; sign out), the
 * sections the operator's role is for, then the page. A narrow screen folds the header's controls
 * and the navigation behind Menu, as the dashboard does.
 */
export function Frame({ operator, onSignedOut }: { operator: SignedInOperator; onSignedOut: () => void }) {
  const t = useConsoleT();
  const [route, go] = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const entries = CONSOLE_NAVIGATION.filter((e) => offeredTo(operator.role, e));
  // The home page (the review queue) is not every role's: theirs is then the first section they have.
  const page = route.page === 'home' && !entries.some((e) => e.page === 'home') ? (entries[0]?.page ?? 'merchants') : route.page;
  const Page = CONSOLE_PAGES[page] ?? CONSOLE_PAGES.merchants!;
  const out = async () => {
    await signOut();
    onSignedOut();
  };
  return (
    <ConsoleNavigation.Provider value={go}>
      <header className="top console">
        <span className="brand">{t('console.brand')}</span>
        <button type="button" className="menu-toggle secondary" aria-expanded={menuOpen} aria-controls="main-nav header-controls" onClick={() => setMenuOpen(!menuOpen)}>
          {t('nav.menu')}
        </button>
        <div id="header-controls" className={menuOpen ? 'header-controls open' : 'header-controls'}>
          <LanguagePicker />
          <span className="who">
            {operator.email} · {t(`console.role.${operator.role}`)}
          </span>
          <Link to="security" aria-current={page === 'security' ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
            {t('console.nav.security')}
          </Link>
          <button type="button" onClick={() => void out()}>
            {t('nav.signOut')}
          </button>
        </div>
      </header>
      <div className="layout">
        <nav id="main-nav" className={menuOpen ? 'main-nav open' : 'main-nav'} aria-label={t('console.nav.main')}>
          <ul>
            {entries.map((e) => (
              <li key={e.page}>
                <Link to={e.page} aria-current={page === e.page || e.under?.includes(page) ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                  {t(e.label)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <Page key={`${page}:${route.id ?? ''}`} operator={operator} id={route.id} onSignedOut={onSignedOut} />
      </div>
    </ConsoleNavigation.Provider>
  );
}
