import { isRefused } from '#packages/core/refusal.js';
import { maskedHolderName, type BankAccount, type PayoutBank, type PayoutDestination, type Rails } from '#packages/connectors/port.js';
import type { Actor, Environment, Requester } from '#packages/core/owner.js';
import { assertLiveOpen, type ActivationGate } from '#packages/families/platform/index.js';
import type { Owner } from './decider.js';

/** The banks a merchant can pay in a currency (docs/payouts.md, "Bank accounts"): the list of the rail that pays them. */
export class BankList {
  constructor(private readonly rails: (environment: Environment) => Rails) {}

  /** IKW-PRV-001 when no rail of the environment pays bank accounts in `currency`. */
  list(owner: Owner, currency: string): Promise<readonly PayoutBank[]> {
    return this.rails(owner.environment).banks(currency);
  }
}

/** What a lookup answers: the bank's name for the holder (masked unless the asker may read it), or null when the bank tells none. */
export interface AccountHolder {
  accountName: string | null;
  masked: boolean;
}

/**
 * What the live rail says of a destination a merchant wants its money settled to, kept for the
 * platform's reviewer (docs/merchants.md, "Going live"): `accepted` (a wallet the catalog and the
 * rail take; a bank account whose holder's name the bank gives as the merchant does, or tells
 * none), `holder_mismatch` (the bank names someone else: `detail` says whom), `account_unknown`,
 * `not_payable` (no live rail pays it) or `unavailable` (the rail could not answer: check again
 * before deciding). `holderName`: the bank's name for the holder, when it gave one.
 */
export interface SettlementCheck {
  result: 'accepted' | 'holder_mismatch' | 'account_unknown' | 'not_payable' | 'unavailable';
  holderName: string | null;
  detail: string | null;
}

/**
 * The bank's name for an account's holder, asked before a payout to it (docs/payouts.md, "Bank
 * accounts"), so that whoever pays sees whom the money goes to and the payout names the holder as
 * the bank does. A lookup tells a name, as a refused name check does: each one counts against the
 * merchant's credential (RATE_LIMIT_NAME_CHECK) unless the bank could not answer, and the name
 * shows whole only to a signed-in user with payouts rights. In live it waits for the live gate.
 */
export class AccountHolderLookup {
  constructor(
    private readonly deps: {
      rails: (environment: Environment) => Rails;
      activations: ActivationGate;
      nameChecks(owner: Owner, credential: string): Promise<{ giveBack(): Promise<void> }>;
    },
  ) {}

  async lookUp(owner: Owner, account: BankAccount, by: Requester, actor: Actor): Promise<AccountHolder> {
    await assertLiveOpen(this.deps.activations, owner, 'account_number');
    const counted = await this.deps.nameChecks(owner, actor.actor);
    let name: string | null;
    try {
      name = await this.deps.rails(owner.environment).accountHolder(account);
    } catch (err) {
      // An account the bank does not know tells something too; a bank that could not answer told nothing.
      if (!isRefused(err, 'IKW-PRV-011')) await counted.giveBack();
      throw err;
    }
    if (name === null) {
      await counted.giveBack();
      return { accountName: null, masked: false };
    }
    return by.seesHolderNames ? { accountName: name, masked: false } : { accountName: maskedHolderName(name), masked: true };
  }

  /**
   * A settlement destination checked as a live payout to it would be (the rail takes it, the bank
   * knows the account and names its holder as given), before the merchant's live environment is
   * open: so no live gate, and no name-check quota (one check per submission of an application).
   * A check that cannot be made is a result for the reviewer, never a refusal of the application.
   */
  async checkSettlement(merchantId: string, destination: PayoutDestination): Promise<SettlementCheck> {
    const rails = this.deps.rails('live');
    try {
      rails.assertCanPayOut(destination);
    } catch (err) {
      if (isRefused(err)) return { result: 'not_payable', holderName: null, detail: err.message };
      throw err;
    }
    let holderName: string | null = null;
    try {
      if (destination.type === 'bank') holderName = await rails.accountHolder({ currency: destination.currency, bank_code: destination.bank_code, account_number: destination.account_number });
      await rails.verifyDestination(destination, { merchantId });
      return { result: 'accepted', holderName, detail: null };
    } catch (err) {
      if (isRefused(err, 'IKW-PRV-010')) return { result: 'holder_mismatch', holderName, detail: err.message };
      if (isRefused(err, 'IKW-PRV-011')) return { result: 'account_unknown', holderName: null, detail: err.message };
      if (isRefused(err)) return { result: 'unavailable', holderName, detail: err.message };
      return { result: 'unavailable', holderName, detail: 'The rail did not answer' };
    }
  }
}
