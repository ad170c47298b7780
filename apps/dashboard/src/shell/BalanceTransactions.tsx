import { useContext } from 'react';
import { Badge } from './Badge.js';
import { Link, Scrollable } from './components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from './i18n.js';
import type { PageName } from './router.js';
import { balanceTransactionMessages, TYPES, type TransactionType } from './balanceTransactions.messages.js';

/** A balance transaction as GET /api/v1/balance-transactions answers it. */
export interface BalanceTransaction {
  id: string;
  created: number;
  available_on?: number;
  type: string;
  status?: string;
  source: string | null;
  currency: string;
  amount: number;
  fee: number;
  net: number;
}

const isKnownType = (type: string): type is TransactionType => (TYPES as readonly string[]).includes(type);

/** The page an object of a balance transaction is shown on, by its id's prefix. */
function pageOfSource(source: string): PageName | null {
  if (source.startsWith('pi_')) return 'payment';
  if (source.startsWith('po_')) return 'payout';
  return null;
}

/**
 * Balance transactions as a table, each linking to the payment or payout it is for: by the name
 * `nameOf` gives its source (Home's recent activity), else by its id.
 */
export function BalanceTransactionsTable({ transactions, labelledBy, showStatus = false, nameOf }: { transactions: BalanceTransaction[]; labelledBy: string; showStatus?: boolean; nameOf?: (source: string) => string | null }) {
  const t = useMessages(balanceTransactionMessages);
  const { language } = useContext(LanguageContext);
  return (
    <Scrollable labelledBy={labelledBy}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('when')}</th>
            <th scope="col">{t('what')}</th>
            <th scope="col">{t('source')}</th>
            {showStatus && <th scope="col">{t('status')}</th>}
            <th scope="col">{t('amount')}</th>
            <th scope="col">{t('fee')}</th>
            <th scope="col">{t('net')}</th>
          </tr>
        </thead>
        <tbody>
          {transactions.map((tx) => {
            const page = tx.source ? pageOfSource(tx.source) : null;
            return (
              <tr key={tx.id}>
                {/* The time and the kind may wrap, and an id is set small as ids are elsewhere: seven columns fit at 1280 px. */}
                <td className="wrap">{formatWhen(language, tx.created)}</td>
                <td className="wrap">{isKnownType(tx.type) ? t(`type.${tx.type}`) : tx.type}</td>
                <td>{tx.source ? <SourceName page={page} source={tx.source} name={nameOf?.(tx.source) ?? null} /> : ''}</td>
                {showStatus && (
                  <td>
                    <Badge status={tx.status}>{tx.status === 'pending' || tx.status === 'available' ? t(`status.${tx.status}`) : (tx.status ?? '')}</Badge>
                  </td>
                )}
                <td className="amount">{formatAmount(language, tx.amount, tx.currency)}</td>
                <td className="amount">{formatAmount(language, tx.fee, tx.currency)}</td>
                <td className="amount">{formatAmount(language, tx.net, tx.currency)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Scrollable>
  );
}

/** What a transaction is for: its name (Home's activity) or its id, linking to its page when it has one. */
function SourceName({ page, source, name }: { page: PageName | null; source: string; name: string | null }) {
  const shown = name ?? <code>{source}</code>;
  return page ? (
    <Link to={page} id={source}>
      {shown}
    </Link>
  ) : (
    shown
  );
}
