import type { DashboardFamily } from '../../shell/family.js';
import { AcceptInvitation } from './AcceptInvitation.js';
import { EmailChange } from './EmailChange.js';
import { GoogleConnectReturn, GoogleSignInReturn } from './GoogleReturn.js';
import { MagicLink } from './MagicLink.js';
import { ForgotPassword, ResetPassword } from './PasswordReset.js';
import { Settings } from './Settings.js';
import { SignIn } from './SignIn.js';
import { SignUp } from './SignUp.js';
import { Team } from './Team.js';

/** Dashboard users: the signed-out pages (sign-in, sign-up, links from e-mails), the team, the user's settings. */
export const accounts = {
  pages: { team: Team, settings: Settings, settingsSection: Settings, emailChange: EmailChange, google: GoogleConnectReturn },
  navigation: [
    { group: 'account', page: 'team', label: 'nav.team' },
    { group: 'account', page: 'settings', label: 'nav.settings', under: ['settingsSection'] },
  ],
  signedOutPages: {
    invitation: AcceptInvitation,
    signUp: SignUp,
    forgotPassword: ForgotPassword,
    resetPassword: ResetPassword,
    magicLink: MagicLink,
    emailChange: EmailChange,
    google: GoogleSignInReturn,
  },
  signIn: SignIn,
} satisfies DashboardFamily;
