import { formatAmount } from '#packages/catalog/index.js';
import type { StatementBalances, StatementObject } from './events.js';
import type { StatementCategory } from './statement.js';

export type StatementLanguage = 'en' | 'fr';

const WORDS: Record<StatementLanguage, { title: string; period: string; opening: string; closing: string; balances: string; lines: Record<StatementCategory, string>; entries: string; issued: string }> = {
  en: {
    title: 'Statement',
    period: 'Period (UTC)',
    opening: 'Opening balance',
    closing: 'Closing balance',
    balances: 'available / pending / reserved = total',
    lines: {
      payments: 'Payments',
      settlements: 'Settlements',
      fees: 'Fees',
      refunds: 'Refunds',
      disputes: 'Disputes',
      payouts: 'Payouts',
      reserves: 'Reserves held',
      reserve_releases: 'Reserves released',
      adjustments: 'Adjustments',
    },
    entries: 'entries',
    issued: 'Issued by Sika',
  },
  fr: {
    title: 'Relevé',
    period: 'Période (UTC)',
    opening: "Solde d'ouverture",
    closing: 'Solde de clôture',
    balances: 'disponible / en attente / réservé = total',
    lines: {
      payments: 'Paiements',
      settlements: 'Règlements',
      fees: 'Frais',
      refunds: 'Remboursements',
      disputes: 'Litiges',
      payouts: 'Virements sortants',
      reserves: 'Réserves constituées',
      reserve_releases: 'Réserves libérées',
      adjustments: 'Ajustements',
    },
    entries: 'écritures',
    issued: 'Émis par Sika',
  },
};

/**
 * A ready statement as a document's title and text, in the reader's language, with the merchant's
 * name and the platform's: what the PDF lays out (the templates' PDF workers). The standard PDF
 * fonts have no narrow no-break space, so amounts are written with plain spaces.
 */
export function statementDocument(statement: StatementObject, merchantName: string, lang: StatementLanguage): { title: string; text: string } {
  const w = WORDS[lang];
  const money = (amount: number) => formatAmount(amount, statement.currency, lang).replace(/[\u202f\u00a0]/g, ' ');
  const balances = (b: StatementBalances) => `${money(b.available)} / ${money(b.pending)} / ${money(b.reserved)} = ${money(b.total)}`;
  const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
  const lastDay = day(statement.period_end - 86_400);
  const lines = [
    merchantName,
    `${w.period}: ${day(statement.period_start)} – ${lastDay} · ${statement.currency.toUpperCase()} · ${statement.livemode ? 'live' : 'sandbox'}`,
    `${statement.id}`,
    '',
    `(${w.balances})`,
    '',
    `${w.opening}: ${statement.opening ? balances(statement.opening) : '—'}`,
    '',
    ...statement.lines.map((l) => `${w.lines[l.category]} (${l.count} ${w.entries}): ${balances(l)}`),
    '',
    `${w.closing}: ${statement.closing ? balances(statement.closing) : '—'}`,
    '',
    w.issued,
  ];
  return { title: `${w.title} — ${merchantName}`, text: lines.join('\n') };
}
