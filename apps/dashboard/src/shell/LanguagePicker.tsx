import { LanguageContext, useT, type Language } from './i18n.js';

/** The language switch of the signed-out pages and the signed-in header. */
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
