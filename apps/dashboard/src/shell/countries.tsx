import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import { LanguageContext, LOCALES, useT, type Language } from './i18n.js';
import { sika, withSession } from './session.js';

type Direction = 'payin' | 'payout';

/** The catalog's countries with their operators for money in (`payin`), out (`payout`) or either (none); asked once per session, it does not change. */
export function useCountries(direction: Direction | undefined, onSignedOut: () => void) {
  return useQuery({
    queryKey: ['countries', direction ?? 'any'],
    queryFn: () => withSession(() => sika.get('/api/v1/geography/countries', { params: { query: direction ? { direction } : {} } }), onSignedOut),
    staleTime: Infinity,
  });
}

type Country = NonNullable<ReturnType<typeof useCountries>['data']>['data'][number];
type Operator = NonNullable<Country['operators']>[number];

/** The catalog's countries for `direction`, the one a form is about (its currency, calling code) and its operators that move money that way. */
export function useCountry(direction: Direction, country: string, onSignedOut: () => void): { countries: Country[]; chosen: Country | undefined; operators: Operator[] } {
  const countries = useCountries(direction, onSignedOut).data?.data ?? [];
  const chosen = countries.find((c) => c.id === country);
  return { countries, chosen, operators: (chosen?.operators ?? []).filter((o) => o.directions.includes(direction)) };
}

/** A country's name in `language` (ISO 3166 code), the catalog's English name when the browser has none. */
export function countryName(language: Language, code: string, fallback?: string): string {
  try {
    return new Intl.DisplayNames(LOCALES[language], { type: 'region' }).of(code.toUpperCase()) ?? fallback ?? code;
  } catch {
    return fallback ?? code;
  }
}

/**
 * The catalog's names for what the API says in codes, in the page's language: an operator
 * (`orange_money` → Orange Money), a country (SN → Sénégal in French) and a payment method.
 */
export function useCatalogNames(onSignedOut: () => void) {
  const { language } = useContext(LanguageContext);
  const t = useT();
  const operators = new Map((useCountries(undefined, onSignedOut).data?.data ?? []).flatMap((c) => (c.operators ?? []).map((o) => [o.id, o.name] as const)));
  return {
    operator: (id: string | null | undefined) => (id ? (operators.get(id) ?? id.replaceAll('_', ' ')) : ''),
    country: (code: string | null | undefined) => (code ? countryName(language, code) : ''),
    method: (type: string | null | undefined) => (type === 'card' || type === 'mobile_money' || type === 'bank' ? t(`method.${type}`) : (type ?? '')),
  };
}

/** A choice among the catalog's countries, named in the page's language: every form that is about one. */
export function CountrySelect({ label, countries, value, onChange, name }: { label: string; countries: Country[]; value: string; onChange: (country: string) => void; name?: string }) {
  const { language } = useContext(LanguageContext);
  return (
    <label>
      {label}
      <select name={name} value={value} onChange={(e) => onChange(e.target.value)}>
        {countries.map((c) => (
          <option key={c.id} value={c.id}>
            {countryName(language, c.id, c.name)}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * A mobile money wallet's operator (among those of the chosen country) and number: the fields
 * `operator` and `msisdn` of a form. `filled` (a saved destination's) fills them; a new `filled.key`
 * or country starts them afresh.
 */
export function WalletFields({
  labels,
  operators,
  callingCode,
  filled,
}: {
  labels: { operator: string; msisdn: string };
  operators: Operator[];
  callingCode: string | undefined;
  filled?: { key: string; operator?: string; msisdn?: string };
}) {
  const key = `${filled?.key ?? ''}-${operators.map((o) => o.id).join()}`;
  return (
    <>
      <label>
        {labels.operator}
        <select name="operator" required key={`operator-${key}`} defaultValue={filled?.operator}>
          {operators.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {labels.msisdn}
        <input name="msisdn" type="tel" required autoComplete="off" placeholder={`${callingCode ?? '+221'}…`} key={`msisdn-${filled?.key ?? ''}`} defaultValue={filled?.msisdn} />
      </label>
    </>
  );
}

/** Every ISO 3166 country the browser can name (two letters it names, less the groupings that are not a country), by its name in `language`. */
function allCountries(language: Language): { code: string; name: string }[] {
  const names = new Intl.DisplayNames(LOCALES[language], { type: 'region', fallback: 'none' });
  const codes: string[] = [];
  for (let a = 65; a <= 90; a++) for (let b = 65; b <= 90; b++) codes.push(String.fromCharCode(a, b));
  return codes
    .filter((code) => !NOT_COUNTRIES.has(code))
    .map((code) => ({ code, name: names.of(code) }))
    .filter((c): c is { code: string; name: string } => c.name !== undefined && c.name !== c.code)
    .sort((x, y) => x.name.localeCompare(y.name, LOCALES[language]));
}
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'ZZ', 'AC', 'CP', 'DG', 'EA', 'IC', 'TA', 'XA', 'XB', 'CQ']);

/** A choice of any country (a business's, an organization's), named in the page's language; the form sends its ISO code as `name`. */
export function AnyCountrySelect({ label, name, defaultValue, describedBy }: { label: string; name: string; defaultValue?: string; describedBy?: string }) {
  const { language } = useContext(LanguageContext);
  const t = useT();
  return (
    <label>
      {label}
      <select name={name} required defaultValue={defaultValue ?? ''} autoComplete="country" aria-describedby={describedBy}>
        {!defaultValue && <option value="">{t('choose')}</option>}
        {allCountries(language).map((c) => (
          <option key={c.code} value={c.code}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A choice among the currencies of the catalog's countries, each named in the page's language (XOF — West African CFA franc); sends the upper-case code. */
export function CurrencySelect({ label, name, defaultValue, id, onSignedOut }: { label: string; name: string; defaultValue: string; id?: string; onSignedOut: () => void }) {
  const { language } = useContext(LanguageContext);
  const names = new Intl.DisplayNames(LOCALES[language], { type: 'currency' });
  const currencies = [...new Set([defaultValue.toUpperCase(), ...(useCountries(undefined, onSignedOut).data?.data ?? []).map((c) => c.currency.toUpperCase())])].sort();
  return (
    <label>
      {label}
      <select id={id} name={name} required defaultValue={defaultValue.toUpperCase()} key={currencies.join()}>
        {currencies.map((code) => (
          <option key={code} value={code}>
            {code} — {names.of(code)}
          </option>
        ))}
      </select>
    </label>
  );
}
