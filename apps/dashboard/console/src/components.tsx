import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { createContext, useContext, useState, type AnchorHTMLAttributes, type ReactNode } from 'react';
import { useFailureText } from '../../src/shell/components.js';
import { pathOf, type ConsolePageName } from './router.js';
import { sessionEnded, type SignedInOperator } from './session.js';

/** What every signed-in page of the console is given. */
export interface ConsolePageProps {
  operator: SignedInOperator;
  /** The object of a page with `:id` in its path. */
  id?: string | undefined;
  /** Called when the session ends under the page: the console asks to sign in again. */
  onSignedOut: () => void;
}

export type ConsolePage = (props: ConsolePageProps) => React.JSX.Element;

/** Moves to another page of the console. */
export const ConsoleNavigation = createContext<(page: ConsolePageName, id?: string) => void>(() => undefined);

/** A link to a page of the console: a real address (opens in a new tab too), followed without a reload. */
export function Link({ to, id, children, ...rest }: { to: ConsolePageName; id?: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const go = useContext(ConsoleNavigation);
  return (
    <a
      {...rest}
      href={pathOf(to, id)}
      onClick={(e) => {
        rest.onClick?.(e);
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        go(to, id);
      }}
    >
      {children}
    </a>
  );
}

/**
 * An operator's decision or change (a button or a form): `action.mutate(work)` runs `work`, then
 * asks again for every query under `changes`; a refusal is kept in `error`, in the API's words (or
 * the passkey prompt closed, in ours); a session that ended meanwhile signs the console out.
 */
export function useOperatorAction(onSignedOut: () => void, changes: QueryKey[]) {
  const failureText = useFailureText();
  const queries = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const action = useMutation({
    mutationFn: (work: () => Promise<unknown>) => work(),
    onMutate: () => setError(null),
    onError: (err) => {
      if (sessionEnded(err)) onSignedOut();
      else setError(failureText(err));
    },
    onSettled: () => Promise.all(changes.map((queryKey) => queries.invalidateQueries({ queryKey }))),
  });
  return { action, error, setError };
}
