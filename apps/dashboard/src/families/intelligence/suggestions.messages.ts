import type { Messages } from '../../shell/i18n.js';

/** The words of the suggestions card (Suggestions.tsx). */
export const suggestionMessages: Messages<'title' | 'open' | 'kind.onboarding' | 'kind.attention' | 'kind.feature'> = {
  en: { title: 'Suggestions', open: 'Open', 'kind.onboarding': 'To do', 'kind.attention': 'Needs attention', 'kind.feature': 'Idea' },
  fr: { title: 'Suggestions', open: 'Ouvrir', 'kind.onboarding': 'À faire', 'kind.attention': 'À surveiller', 'kind.feature': 'Idée' },
};
