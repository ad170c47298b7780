import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useState } from 'react';
import { errorText } from './components.js';
import { useMessages } from './i18n.js';
import { sika, withSession } from './session.js';
import { organizationSwitchMessages } from './organizationSwitch.messages.js';

/**
 * Moves the session to another of the user's organizations (`persist`: where later sign-ins start
 * too). The shell provides it: after a move every page shows the new organization's data.
 */
export const SwitchOrganizationContext = createContext<(organizationId: string, persist: boolean) => Promise<void>>(async () => undefined);

/** The header's choice of organization, shown to a user who belongs to more than one. */
export function OrganizationSwitch({ current, onSignedOut }: { current: string; onSignedOut: () => void }) {
  const t = useMessages(organizationSwitchMessages);
  const switchTo = useContext(SwitchOrganizationContext);
  const [error, setError] = useState<string | null>(null);
  const mine = useQuery({ queryKey: ['organizations'], queryFn: () => withSession(() => sika.get('/api/v1/organizations/mine'), onSignedOut) });
  const organizations = mine.data?.data ?? [];
  if (organizations.length < 2) return null;
  return (
    <label className="inline organization-switch">
      {t('organization')}{' '}
      <select
        value={current}
        aria-describedby={error ? 'organization-error' : undefined}
        onChange={(e) => {
          setError(null);
          switchTo(e.target.value, false).catch((err: unknown) => setError(errorText(err, t('switchFailed'))));
        }}
      >
        {organizations.map((o) => (
          <option key={o.id} value={o.id}>
            {o.displayName}
          </option>
        ))}
      </select>
      {error && (
        <span id="organization-error" className="error" role="alert">
          {error}
        </span>
      )}
    </label>
  );
}
