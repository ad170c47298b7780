import type { Messages } from '../../shell/i18n.js';

/** The words of the configuration page's features (ConfigurationFeatures.tsx). */
export const configurationFeatureMessages: Messages<'features' | 'featuresHelp' | 'featuresNone' | 'feature' | 'state' | 'scope' | 'on' | 'off' | 'yours' | 'everyone' | 'description'> = {
  en: {
    features: 'Features',
    featuresHelp: 'Features Sika turned on or off for your account or for everyone. Ask support to change one.',
    featuresNone: 'No feature is set apart for your account.',
    feature: 'Feature',
    state: 'State',
    scope: 'For',
    on: 'On',
    off: 'Off',
    yours: 'Your account',
    everyone: 'Everyone',
    description: 'What it does',
  },
  fr: {
    features: 'Fonctionnalités',
    featuresHelp: 'Les fonctionnalités que Sika a activées ou désactivées pour votre compte ou pour tous. Demandez au support pour en changer une.',
    featuresNone: 'Aucune fonctionnalité n’est réglée à part pour votre compte.',
    feature: 'Fonctionnalité',
    state: 'État',
    scope: 'Pour',
    on: 'Activée',
    off: 'Désactivée',
    yours: 'Votre compte',
    everyone: 'Tous',
    description: 'Ce qu’elle fait',
  },
};
