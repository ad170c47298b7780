import type { Messages } from './i18n.js';

/** The words of the organization switch (OrganizationSwitch.tsx). */
export const organizationSwitchMessages: Messages<'organization' | 'switchFailed'> = {
  en: { organization: 'Organization', switchFailed: 'Could not move to that organization' },
  fr: { organization: 'Organisation', switchFailed: 'Impossible de passer à cette organisation' },
};
