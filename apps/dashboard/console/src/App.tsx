import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { LanguageContext, preferredLanguage, type Language } from '../../src/shell/i18n.js';
import { Frame } from './Frame.js';
import { useRoute } from './router.js';
import { resume, type SignedInOperator } from './session.js';
import { Invitation, SignIn } from './SignIn.js';
import { useConsoleT } from './words.js';

/** The console: the operator's sign-in (or an invitation's page), then the frame around the sections their role is for. */
export function App({ onSessionEnded }: { onSessionEnded: (listener: () => void) => void }) {
  const [language, setLanguageState] = useState<Language>(preferredLanguage);
  const [operator, setOperator] = useState<SignedInOperator | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const queries = useQueryClient();
  const setLanguage = (l: Language) => {
    localStorage.setItem('sika.language', l);
    setLanguageState(l);
  };
  // Signed out, by the operator or the session's end: nothing of theirs stays cached for the next.
  const signedOut = (byItself: boolean) => {
    queries.clear();
    setEnded(byItself);
    setOperator(null);
  };
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  useEffect(() => {
    resume().then(setOperator, () => setOperator(null));
    onSessionEnded(() => signedOut(true));
  }, []);
  const signedIn = (o: SignedInOperator) => {
    setEnded(false);
    setOperator(o);
  };
  return (
    <LanguageContext.Provider value={{ language, setLanguage }}>
      {operator === undefined ? <Loading /> : operator === null ? <SignedOut onSignedIn={signedIn} ended={ended} /> : <Frame key={operator.id} operator={operator} onSignedOut={() => signedOut(false)} />}
    </LanguageContext.Provider>
  );
}

function SignedOut({ onSignedIn, ended }: { onSignedIn: (o: SignedInOperator) => void; ended: boolean }) {
  const t = useConsoleT();
  const [route, go] = useRoute();
  const signedIn = (o: SignedInOperator) => {
    // From the invitation's page to the console's home.
    if (route.page === 'invitation') go('home');
    onSignedIn(o);
  };
  return route.page === 'invitation' ? <Invitation onSignedIn={signedIn} /> : <SignIn onSignedIn={signedIn} notice={ended ? t('console.signedOut') : null} />;
}

function Loading() {
  const t = useConsoleT();
  return (
    <main className="centered" aria-busy="true">
      <p>{t('loading')}</p>
    </main>
  );
}
