import type { Decider } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';
import { PersistentMap } from '#packages/core/persistent-map.js';
import { kindIn, type ChartPart } from './chart.js';
import { assertAmounts, isBalanced, type LedgerEntry, type LedgerEntryEvent, type Line, type Posting } from './entry.js';

/**
 * The posting engine (docs/ledger.md): the balance of one merchant × environment × currency as a
 * Decider that knows no family. Families post through recipes (their `postings.ts`), which read
 * the balance as a Book and post entries; the engine keeps the invariants every entry obeys:
 * balanced, integer, once per `kind:source`, and no account below zero that the chart forbids.
 * Holds (amount + fee set aside until paid out or given back) are generic: a family registers the
 * kinds of entry that open them and how they are completed and released. Where folding needs a
 * family's own state (a marketplace order's shares), the family registers a reducer. The chart and
 * what the families register are a value (`Ledger`), made when the system opens and handed to
 * whoever folds or decides a balance: the engine keeps no state of its own.
 */

export interface LedgerContext {
  merchantId: string;
  environment: Environment;
  currency: string;
  at: Date;
  /** Id for each new entry, supplied by the caller so the decider stays pure. */
  newEntryId: () => string;
}

/**
 * Funds set aside on `heldIn` until they are paid out (`complete`) or given back to `returnTo`
 * (`release`): opened by an entry of a registered hold kind, which it keeps for its refs.
 */
export interface Hold {
  kind: string;
  source: string;
  /** Amount + fee. */
  total: number;
  fee: number;
  heldIn: string;
  returnTo: string;
  /** The entry that opened it. */
  opened: LedgerEntry;
}

/** A kind of hold a family posts (a payout's, a batch's, a seller payout's, …): its entries and how it ends. */
export interface HoldKind {
  /** The entry kind that opens a hold of this kind: its positive line is where the funds wait, its negative one where they came from. */
  readonly opens: string;
  /** The entry kinds that end it (paid out, released): folding closes the hold of their source. */
  readonly endedBy: readonly string[];
  /** For a hold carved out of another (a batch item's out of its batch's): that hold's source, read off the opening entry. */
  carvedFrom?(entry: LedgerEntry): string | undefined;
  /** The entry that pays the hold out to `to` (a clearing account). */
  complete?(hold: Hold, to: string): Posting;
  /** The entry that gives it back, or null when there is nothing to give back. */
  release(hold: Hold): Posting | null;
}

/** A family's state folded from the entries of a balance (a marketplace's orders), registered with the ledger. */
export interface LedgerReducer<S> {
  readonly name: string;
  readonly initial: S;
  evolve(state: S, entry: LedgerEntry): S;
}

/** What a family registers with the ledger (its manifest's `ledger`): its kinds of hold and its reducers. */
export interface LedgerPart {
  readonly holds?: readonly HoldKind[];
  // Reducers of any state: each is read back through its own typed handle.
  readonly reducers?: readonly LedgerReducer<any>[];
}

export interface LedgerState {
  /** Persistent: one per campaign and escrow contract too, so it grows with the merchant. */
  balances: PersistentMap<number>;
  /** `kind:source` of every entry posted: postings are once per object. Persistent: copying it per entry made the stream's fold quadratic. */
  posted: PersistentMap<true>;
  /** Holds not yet completed or released, by source (few at a time). */
  holds: ReadonlyMap<string, Hold>;
  /** The registered reducers' states, by name; a reducer that saw nothing has its initial state. */
  families: ReadonlyMap<string, unknown>;
}

export function balanceOf(state: LedgerState, account: string): number {
  return state.balances.get(account) ?? 0;
}

/** A registered family's state as the entries folded into `state` leave it. */
export function familyState<S>(state: LedgerState, reducer: LedgerReducer<S>): S {
  return (state.families.has(reducer.name) ? state.families.get(reducer.name) : reducer.initial) as S;
}

function openHold(holds: ReadonlyMap<string, Hold>, kind: HoldKind, e: LedgerEntry): Map<string, Hold> {
  const next = new Map(holds);
  const into = e.lines.find((l) => l.amount > 0);
  const from = e.lines.find((l) => l.amount < 0);
  const total = into?.amount ?? 0;
  const parentSource = kind.carvedFrom?.(e);
  const parent = parentSource === undefined ? undefined : holds.get(parentSource);
  if (parentSource !== undefined && parent) {
    // Carved out of the parent: what it holds goes down, where the funds wait and return does not change.
    next.set(parentSource, { ...parent, total: parent.total - total, fee: parent.fee - e.fee });
    next.set(e.source, { kind: e.kind, source: e.source, total, fee: e.fee, heldIn: parent.heldIn, returnTo: parent.returnTo, opened: e });
  } else {
    next.set(e.source, { kind: e.kind, source: e.source, total, fee: e.fee, heldIn: into?.account ?? '', returnTo: from?.account ?? '', opened: e });
  }
  return next;
}

/**
 * A balance as a recipe reads and posts to it: each posting is folded at once, so a recipe posting
 * several entries (a payment and the settlements then due) reads the balance each left.
 */
export class Book {
  readonly events: LedgerEntryEvent[] = [];

  constructor(
    private readonly ledger: Ledger,
    private state: LedgerState,
    readonly context: LedgerContext,
  ) {}

  /** The balance's currency, lower-case, as entries and refusals name it. */
  get currency(): string {
    return this.context.currency.toLowerCase();
  }

  get at(): Date {
    return this.context.at;
  }

  balance(account: string): number {
    return balanceOf(this.state, account);
  }

  posted(kind: string, source: string): boolean {
    return this.state.posted.has(`${kind}:${source}`);
  }

  hold(source: string): Hold | undefined {
    return this.state.holds.get(source);
  }

  /** A registered family's state as the entries so far leave it. */
  family<S>(reducer: LedgerReducer<S>): S {
    return familyState(this.state, reducer);
  }

  /** Posts one entry. Unbalanced, not integer, or a second entry of one `kind:source`: a bug of the recipe, thrown. */
  post(posting: Posting): void {
    const { kind, source, lines, amount, fee, net, refs, availableOn } = posting;
    if (!isBalanced(lines)) throw new Error(`Unbalanced ${kind} entry for ${source}`);
    if (this.posted(kind, source)) throw new Error(`A ${kind} entry for ${source} is already posted`);
    const ctx = this.context;
    const data: LedgerEntry = {
      entryId: ctx.newEntryId(),
      kind,
      source,
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      currency: this.currency,
      lines: lines.filter((l) => l.amount !== 0),
      amount,
      fee,
      net,
      ...refs,
      availableOn: (availableOn ?? ctx.at).toISOString(),
      postedAt: ctx.at.toISOString(),
    };
    const event: LedgerEntryEvent = { type: 'ledger.entry_posted', data };
    this.events.push(event);
    this.state = this.ledger.decider.evolve(this.state, event);
  }

  /** Posts the entry that opens a hold: its kind must be a registered hold kind. */
  holdFunds(posting: Posting): void {
    if (!this.ledger.holdKind(posting.kind)) throw new Error(`${posting.kind} is not a registered kind of hold`);
    this.post(posting);
  }

  /**
   * Holds amount + fee, moved from `from` to `to`, once per `kind:source` (a second time posts
   * nothing); `short(available, total)` is the refusal when `from` cannot cover it. The entry
   * records the amount leaving the balance (`-amount`, `fee`, `-total`).
   */
  holdAmountAndFee(hold: { kind: string; source: string; amount: number; fee: number; from: string; to: string; short: (available: number, total: number) => Error }): void {
    const { kind, source, amount, fee, from, to } = hold;
    assertAmounts(amount, fee);
    if (this.posted(kind, source)) return;
    const total = amount + fee;
    const available = this.balance(from);
    if (available < total) throw hold.short(available, total);
    this.holdFunds({
      kind,
      source,
      lines: [
        { account: from, amount: -total },
        { account: to, amount: total },
      ],
      amount: -amount,
      fee,
      net: -total,
    });
  }
}

/** What a family's postings.ts gives the ledger: what to post on a balance, read from it. */
export type Recipe = (book: Book) => void;

/**
 * The ledger's commands: a recipe's postings, or the end of a hold: paid out to a clearing
 * account (`complete`), or given back where it came from (`release`), each once.
 */
export type LedgerAction = { type: 'post'; recipe: Recipe } | { type: 'complete'; source: string; to: string } | { type: 'release'; source: string };
export type LedgerCommand = LedgerContext & LedgerAction;

/** A family's part of the ledger (its manifest's `ledger`), named by its family: what a `Ledger` is made from besides the chart. */
export interface OwnedLedgerPart {
  readonly owner: string;
  readonly part: LedgerPart;
}

/**
 * The ledger as the system opened it (the kernel's `ledger`): the chart of accounts and the
 * families' kinds of hold and reducers, and the balance as a Decider that folds and decides by
 * them. Because the balance is one stream, a hold and its balance check are one append with an
 * expected version. A hold kind or reducer two families register is refused when it is made.
 */
export class Ledger {
  readonly decider: Decider<LedgerCommand, LedgerState, LedgerEntryEvent>;
  private readonly holdKinds = new Map<string, HoldKind>();
  private readonly endingKinds: ReadonlySet<string>;
  private readonly reducers: readonly LedgerReducer<unknown>[];

  constructor(
    private readonly chart: ChartPart,
    parts: readonly OwnedLedgerPart[],
  ) {
    const named = new Map<string, string>();
    for (const { owner, part } of parts) {
      for (const kind of part.holds ?? []) {
        if (this.holdKinds.has(kind.opens)) throw new Error(`The hold kind ${kind.opens} is registered twice (${owner})`);
        this.holdKinds.set(kind.opens, kind);
      }
      for (const reducer of part.reducers ?? []) {
        const first = named.get(reducer.name);
        if (first) throw new Error(`${first} and ${owner} both register the ledger reducer ${reducer.name}`);
        named.set(reducer.name, owner);
      }
    }
    this.endingKinds = new Set([...this.holdKinds.values()].flatMap((k) => k.endedBy));
    this.reducers = parts.flatMap(({ part }) => part.reducers ?? []);
    this.decider = {
      initialState: { balances: PersistentMap.empty(), posted: PersistentMap.empty(), holds: new Map(), families: new Map() },
      evolve: (state, event) => this.evolve(state, event),
      decide: (command, state) => {
        const book = new Book(this, state, command);
        this.decideEntries(command, book);
        this.assertWithinChart(
          state,
          book.events.flatMap((e) => e.data.lines),
        );
        return book.events;
      },
    };
  }

  /** The kind of an account: the part before its id. An account of no kind of the chart is a bug: thrown. */
  kindOf(account: string): string {
    return kindIn(this.chart, account);
  }

  mayGoNegative(account: string): boolean {
    return this.chart[this.kindOf(account)]!.mayGoNegative;
  }

  /** The registered kind of hold entries of `kind` open, if they open one. */
  holdKind(kind: string): HoldKind | undefined {
    return this.holdKinds.get(kind);
  }

  private evolve(state: LedgerState, event: LedgerEntryEvent): LedgerState {
    const e = event.data;
    let balances = state.balances;
    for (const line of e.lines) balances = balances.set(line.account, (balances.get(line.account) ?? 0) + line.amount);
    const posted = state.posted.set(`${e.kind}:${e.source}`, true);
    let holds = state.holds;
    const kind = this.holdKinds.get(e.kind);
    if (kind) holds = openHold(holds, kind, e);
    else if (this.endingKinds.has(e.kind) && holds.has(e.source)) {
      const next = new Map(holds);
      next.delete(e.source);
      holds = next;
    }
    let families = state.families;
    for (const reducer of this.reducers) {
      const before = families.has(reducer.name) ? families.get(reducer.name) : reducer.initial;
      const after = reducer.evolve(before, e);
      if (after !== before) families = new Map(families).set(reducer.name, after);
    }
    return { balances, posted, holds, families };
  }

  private decideEntries(command: LedgerCommand, book: Book): void {
    switch (command.type) {
      case 'post':
        command.recipe(book);
        return;
      case 'complete': {
        const hold = book.hold(command.source);
        if (!hold) return; // already completed or released: idempotent
        const kind = this.holdKinds.get(hold.kind)!;
        if (!kind.complete) throw new Error(`A ${hold.kind} hold is never paid out`);
        book.post(kind.complete(hold, command.to));
        return;
      }
      case 'release': {
        const hold = book.hold(command.source);
        if (!hold) return;
        const posting = this.holdKinds.get(hold.kind)!.release(hold);
        if (posting) book.post(posting);
        return;
      }
    }
  }

  /**
   * The one invariant every posting keeps besides balancing: an account the chart of accounts says
   * may not go negative never does. Refusals on the merits (IKW-BAL-001…) are the recipes', decided
   * before; reaching this is a bug, and nothing is appended.
   */
  private assertWithinChart(state: LedgerState, lines: readonly Line[]): void {
    const after = new Map<string, number>();
    for (const line of lines) after.set(line.account, (after.get(line.account) ?? balanceOf(state, line.account)) + line.amount);
    for (const [account, balance] of after) if (balance < 0 && !this.mayGoNegative(account)) throw new Error(`Account ${account} would go below zero (${balance})`);
  }
}

/**
 * A hold paid out to `to` (a clearing account) as an entry of `kind`: the amount leaves, the fee
 * goes to `fees` (the platform's account of the chart); as the merchant's balance sees it, spent.
 */
export function paidOut(kind: string, hold: Hold, to: string, refs?: Posting['refs']): Posting {
  return {
    kind,
    source: hold.source,
    lines: [
      { account: hold.heldIn, amount: -hold.total },
      { account: to, amount: hold.total - hold.fee },
      { account: 'fees', amount: hold.fee },
    ],
    amount: -(hold.total - hold.fee),
    fee: hold.fee,
    net: -hold.total,
    ...(refs ? { refs } : {}),
  };
}

/** A hold given back to the account it came from as an entry of `kind`; as the merchant's balance sees it, returned. */
export function givenBack(kind: string, hold: Hold, refs?: Posting['refs']): Posting {
  return {
    kind,
    source: hold.source,
    lines: [
      { account: hold.heldIn, amount: -hold.total },
      { account: hold.returnTo, amount: hold.total },
    ],
    amount: hold.total - hold.fee,
    fee: -hold.fee,
    net: hold.total,
    ...(refs ? { refs } : {}),
  };
}
