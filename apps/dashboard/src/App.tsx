import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Environment } from '../../../clients/typescript/src/index.js';
import { LanguageContext, preferredLanguage, useT, type Language } from './i18n.js';
import { Developers } from './pages/Developers.js';
import { Home } from './pages/Home.js';
import { Payouts } from './pages/Payouts.js';
import { usePage, pathOf, type PageName } from './router.js';
import { SignIn } from './pages/SignIn.js';
import { resume, setEnvironment, signOut, type SignedInUser } from './session.js';

/** The signed-in user (null: signed out; undefined: still finding out from the cookie). */
export function App() {
  const [language, setLanguageState] = useState<Language>(preferredLanguage);
  const [user, setUser] = useState<SignedInUser | null | undefined>(undefined);
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
      {user === undefined ? <Loading /> : user === null ? <SignIn onSignedIn={setUser} /> : <Shell user={user} onSignedOut={() => setUser(null)} />}
    </LanguageContext.Provider>
  );
}

function Loading() {
  const t = useT();
  return (
    <main className="centered" aria-busy="true">
      <p>{t('loading')}</p>
    </main>
  );
}

export function LanguagePicker() {
  const t = useT();
  return (
    <LanguageContext.Consumer>
      {({ language, setLanguage }) => (
        <label className="inline">
          {t('language.label')}{' '}
          <select value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
            <option value="en">English</option>
            <option value="fr">Français</option>
          </select>
        </label>
      )}
    </LanguageContext.Consumer>
  );
}

/** The pages of a signed-in user: a header with the environment switch, then the page. */
function Shell({ user, onSignedOut }: { user: SignedInUser; onSignedOut: () => void }) {
  const t = useT();
  const queries = useQueryClient();
  // Every session starts in sandbox: the switch and the calls' X-Environment agree from the start.
  const [environment, setEnvironmentState] = useState<Environment>(() => {
    setEnvironment('sandbox');
    return 'sandbox';
  });
  const [page, go] = usePage();
  const link = (target: PageName, label: string) => (
    <a
      href={pathOf(target)}
      aria-current={page === target ? 'page' : undefined}
      onClick={(e) => {
        e.preventDefault();
        go(target);
      }}
    >
      {label}
    </a>
  );
  const switchTo = (e: Environment) => {
    setEnvironment(e);
    setEnvironmentState(e);
  };
  const out = async () => {
    await signOut();
    queries.clear();
    onSignedOut();
  };
  return (
    <>
      <header className={`top ${environment}`}>
        <span className="brand">Sika</span>
        <nav aria-label={t('nav.main')}>
          {link('home', t('nav.home'))}
          {link('payouts', t('nav.payouts'))}
          {link('developers', t('nav.developers'))}
        </nav>
        <fieldset className="environment">
          <legend>{t('env.label')}</legend>
          {(['sandbox', 'live'] as const).map((e) => (
            <label key={e}>
              <input type="radio" name="environment" value={e} checked={environment === e} onChange={() => switchTo(e)} /> {t(`env.${e}`)}
            </label>
          ))}
        </fieldset>
        <LanguagePicker />
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
      {page === 'developers' ? (
        <Developers environment={environment} onSignedOut={onSignedOut} />
      ) : page === 'payouts' ? (
        <Payouts environment={environment} onSignedOut={onSignedOut} />
      ) : (
        <Home environment={environment} onSignedOut={onSignedOut} />
      )}
    </>
  );
}
