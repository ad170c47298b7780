/**
 * The chart of accounts (docs/ledger.md): every account a posting may name, declared once, by the
 * family whose money it holds (its manifest's `accounts`; the family list assembles the chart). An
 * account is a kind, or a kind and the id of what it is held for (`escrow:<contract>`). Each
 * merchant × environment × currency balance stream holds them all; every posting balances. The
 * engine knows no kind: it checks postings against what the families declared, handed to it as
 * a value when the system opens (`Ledger`, packages/ledger/decider.ts).
 */

/** Who the money on an account belongs to, as finance reads it. */
export type AccountOwner = 'merchant' | 'payers' | 'sellers' | 'platform' | 'outside';

export interface AccountKind {
  owner: AccountOwner;
  /** A posting that would take it below zero is a bug (domain refusals come first). */
  mayGoNegative: boolean;
  /** Where GET /api/v1/balance shows it. */
  shownAs: string;
  /** What is on it. */
  holds: string;
}

/** One owner's kinds of account, keyed by kind (`escrow` for `escrow:<contract>`): a family's manifest's `accounts`. */
export type ChartPart = Readonly<Record<string, AccountKind>>;

/** The chart, assembled from its owners' parts: a kind two families declare is a mistake of the list, refused at start-up. */
export function assembleChart(owners: readonly { owner: string; accounts: ChartPart }[]): ChartPart {
  const ownerOf = new Map<string, string>();
  for (const { owner, accounts } of owners) {
    for (const kind of Object.keys(accounts)) {
      const first = ownerOf.get(kind);
      if (first) throw new Error(`${first} and ${owner} both declare the ledger account ${kind}`);
      ownerOf.set(kind, owner);
    }
  }
  return Object.assign({}, ...owners.map(({ accounts }) => accounts));
}

/** The kind of `account` in `chart`: the part before its id. An account of no kind of the chart is a bug: thrown. */
export function kindIn(chart: ChartPart, account: string): string {
  const colon = account.indexOf(':');
  const kind = colon < 0 ? account : account.slice(0, colon);
  if (!Object.hasOwn(chart, kind)) throw new Error(`Account '${account}' is not in the chart of accounts`);
  return kind;
}
