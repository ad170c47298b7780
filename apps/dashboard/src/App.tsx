import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { NAVIGATION, PAGES, SIGN_IN, SIGNED_OUT_PAGES } from './families/index.js';
import { NavigationContext } from './shell/components.js';
import { Frame } from './shell/Frame.js';
import { LanguageContext, preferredLanguage, useT, type Language } from './shell/i18n.js';
import { useRoute } from './shell/router.js';
import { resume, type SignedInUser } from './shell/session.js';

/**
 * The application: the shell's frame around the families' pages (families/index.ts), the signed-out
 * pages before a sign-in.
 */
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
        <Frame key={user.organizationId} pages={PAGES} navigation={NAVIGATION} user={user} onSignedOut={signedOut} onSwitched={setUser} />
      )}
    </LanguageContext.Provider>
  );
}

/** The pages of a signed-out visitor, by address, following links between them without a reload; any other address asks to sign in. */
function SignedOut({ onSignedIn }: { onSignedIn: (user: SignedInUser) => void }) {
  const [route, go] = useRoute();
  const Page = SIGNED_OUT_PAGES[route.page] ?? SIGN_IN;
  return (
    <NavigationContext.Provider value={go}>
      <Page onSignedIn={onSignedIn} />
    </NavigationContext.Provider>
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
