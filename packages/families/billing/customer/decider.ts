import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { Owner } from '#packages/core/owner.js';
import type { CreditReason, CustomerCreated, CustomerEvent } from './events.js';

/** One application of the wallet to an invoice: what left the wallet, and what came back. */
export interface WalletApplication {
  invoiceId: string;
  amount: number;
  returned: number;
}

export type CustomerCommand =
  | { type: 'create'; customer: CustomerCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'credit'; creditId: string; amount: number; currency: string; reason: CreditReason; source: string | null }
      | { type: 'apply_to_invoice'; applicationId: string; invoiceId: string; currency: string; maxAmount: number }
      | { type: 'settle_application'; applicationId: string; accepted: number }
      /** The customer's own change of contact details (the portal); the e-mail address, which signs them in, stays. */
      | { type: 'update_contact'; name?: string; phone?: string | null }
      /** An automation's tag_customer step: the tag joins metadata `tags` (comma-separated, sorted). */
      | { type: 'tag'; tag: string }
    ));

export interface CustomerState {
  customer: CustomerCreated | null;
  name: string | null;
  phone: string | null;
  metadata: Record<string, string>;
  /** The wallet's currency: set by the first credit; null while the wallet has never held money. */
  walletCurrency: string | null;
  balance: number;
  /** Ids of credits already made: credits are idempotent. */
  credits: ReadonlySet<string>;
  applications: ReadonlyMap<string, WalletApplication>;
}

export const initialCustomerState: CustomerState = {
  customer: null,
  name: null,
  phone: null,
  metadata: {},
  walletCurrency: null,
  balance: 0,
  credits: new Set(),
  applications: new Map(),
};

/**
 * Customers and their wallets. Creation is idempotent (find-or-create can race on one stream). The
 * wallet never goes below zero: an application takes at most the balance, decided on this stream.
 */
export const customerDecider: Decider<CustomerCommand, CustomerState, Fact<CustomerEvent>> = {
  initialState: initialCustomerState,
  evolve(state, event) {
    switch (event.type) {
      case 'customer.created':
        return { ...state, customer: event.data, name: event.data.name, phone: event.data.phone, metadata: event.data.metadata };
      case 'customer.updated':
        return {
          ...state,
          ...(event.data.name !== undefined ? { name: event.data.name } : {}),
          ...(event.data.phone !== undefined ? { phone: event.data.phone } : {}),
          ...(event.data.metadata !== undefined ? { metadata: event.data.metadata } : {}),
        };
      case 'customer.balance_credited':
        return {
          ...state,
          walletCurrency: state.walletCurrency ?? event.data.currency,
          balance: state.balance + event.data.amount,
          credits: new Set(state.credits).add(event.data.creditId),
        };
      case 'customer.balance_applied':
        return {
          ...state,
          balance: state.balance - event.data.amount,
          applications: new Map(state.applications).set(event.data.applicationId, { invoiceId: event.data.invoiceId, amount: event.data.amount, returned: 0 }),
        };
      case 'customer.balance_returned': {
        const app = state.applications.get(event.data.applicationId);
        const applications = new Map(state.applications);
        if (app) applications.set(event.data.applicationId, { ...app, returned: app.returned + event.data.amount });
        return { ...state, balance: state.balance + event.data.amount, applications };
      }
    }
  },
  decide(command, state) {
    if (command.type === 'create') {
      if (!state.customer) {
        return [{ type: 'customer.created', data: command.customer }];
      }
      // A billing route that knows the name of a customer first met nameless (by e-mail) fills it in.
      if (command.customer.name && !state.name) return [{ type: 'customer.updated', data: { name: command.customer.name } }];
      return [];
    }
    const c = state.customer;
    assertOwned(c, command.owner, 'No such customer', 'customer');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'update_contact': {
        const changes = {
          ...(command.name !== undefined && command.name !== state.name ? { name: command.name } : {}),
          ...(command.phone !== undefined && command.phone !== state.phone ? { phone: command.phone } : {}),
        };
        return Object.keys(changes).length === 0 ? [] : [{ type: 'customer.updated', data: changes }];
      }
      case 'tag': {
        const tags = new Set((state.metadata.tags ?? '').split(',').filter(Boolean));
        if (tags.has(command.tag)) return [];
        const value = [...tags, command.tag].sort().join(',');
        if (value.length > 500) throw new Refusal('IKW-VAL-001', 'This customer has too many tags (metadata tags holds at most 500 characters)', 'tag');
        return [{ type: 'customer.updated', data: { metadata: { ...state.metadata, tags: value } } }];
      }
      case 'credit': {
        if (state.credits.has(command.creditId)) return [];
        if (!Number.isSafeInteger(command.amount) || command.amount <= 0) throw new Refusal('IKW-VAL-001', 'A credit is a positive whole number of minor units', 'amount');
        const currency = command.currency.toLowerCase();
        if (state.walletCurrency && state.walletCurrency !== currency) {
          throw new Refusal('IKW-BIL-010', `This customer's wallet holds ${state.walletCurrency}, not ${currency}`, 'currency');
        }
        return [{ type: 'customer.balance_credited', data: { creditId: command.creditId, amount: command.amount, currency, reason: command.reason, source: command.source, at } }];
      }
      case 'apply_to_invoice': {
        if (state.applications.has(command.applicationId)) return [];
        if (state.balance <= 0) throw new Refusal('IKW-BIL-005', `The wallet of customer ${c.id} is empty`, 'invoiceId');
        const currency = command.currency.toLowerCase();
        if (state.walletCurrency !== currency) {
          throw new Refusal('IKW-BIL-010', `The wallet holds ${state.walletCurrency ?? 'nothing'}; the invoice is in ${currency}`, 'invoiceId');
        }
        const amount = Math.min(state.balance, command.maxAmount);
        if (amount <= 0) return [];
        return [{ type: 'customer.balance_applied', data: { applicationId: command.applicationId, invoiceId: command.invoiceId, amount, currency, at } }];
      }
      case 'settle_application': {
        // What the invoice did not take (it was paid or voided meanwhile) goes back; once only.
        const app = state.applications.get(command.applicationId);
        if (!app) return [];
        const back = app.amount - Math.max(0, command.accepted) - app.returned;
        if (back <= 0) return [];
        return [{ type: 'customer.balance_returned', data: { applicationId: command.applicationId, invoiceId: app.invoiceId, amount: back, at } }];
      }
    }
  },
};
