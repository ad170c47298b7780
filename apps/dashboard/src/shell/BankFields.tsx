import { useQuery } from '@tanstack/react-query';
import type { Environment } from '../../../../clients/typescript/src/index.js';
import { SikaError } from '../../../../clients/typescript/src/index.js';
import { useT } from './i18n.js';
import { sika, withSession } from './session.js';

/** The banks the environment's rail pays in `currency`, by name (GET /api/v1/banks); a currency no rail pays banks in is an empty list. */
export function useBanks(environment: Environment, currency: string, enabled: boolean, onSignedOut: () => void) {
  return useQuery({
    queryKey: ['banks', environment, currency],
    queryFn: async () => {
      try {
        return (await withSession(() => sika.get('/api/v1/banks', { params: { query: { currency } } }), onSignedOut)).data;
      } catch (err) {
        if (err instanceof SikaError && err.code === 'IKW-PRV-001') return [];
        throw err;
      }
    },
    enabled,
    // The rail's list changes seldom: kept for the session.
    staleTime: Infinity,
  });
}

/** A bank account of a form: the bank (among `banks`) and the account number, the fields `bank_code` and `account_number`. */
export function BankFields({ banks }: { banks: { code: string; name: string }[] }) {
  const t = useT();
  if (banks.length === 0) return <p className="notice">{t('payouts.noBanks')}</p>;
  return (
    <>
      <label>
        {t('payouts.bank')}
        <select name="bank_code" required key={banks.map((b) => b.code).join()}>
          {banks.map((b) => (
            <option key={b.code} value={b.code}>
              {b.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('payouts.accountNumber')}
        <input name="account_number" required inputMode="numeric" autoComplete="off" spellCheck={false} />
      </label>
    </>
  );
}
