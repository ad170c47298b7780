import { useState, type FormEvent, type ReactNode } from 'react';
import { useFailureText } from './components.js';
import { LanguagePicker } from './LanguagePicker.js';

/** A page of a signed-out visitor (the dashboard's and the console's): a card with its title, the failure if any, and the language. */
export function SignedOutCard({ title, error, children }: { title: string; error?: string | null; children: ReactNode }) {
  return (
    <main className="centered">
      <div className="card">
        <h1>{title}</h1>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {children}
        <LanguagePicker />
      </div>
    </main>
  );
}

/**
 * A form's submit that shows the API's refusal (`setError`) and keeps the button busy meanwhile:
 * what every signed-out form does.
 */
export function useSubmit(setError: (text: string | null) => void) {
  const failureText = useFailureText();
  const [busy, setBusy] = useState(false);
  const run = async (work: (form: FormData) => Promise<void>, form: FormData) => {
    setBusy(true);
    setError(null);
    try {
      await work(form);
    } catch (err) {
      setError(failureText(err));
    } finally {
      setBusy(false);
    }
  };
  // React ignores what a handler returns, and run never rejects: a refusal is shown, not thrown.
  // The form is read before the handler returns (React clears `currentTarget` after it).
  const submit = (work: (form: FormData) => Promise<void>) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    void run(work, new FormData(e.currentTarget));
  };
  return { submit, busy };
}
