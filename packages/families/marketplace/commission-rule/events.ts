import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** A marketplace commission rule as the API shows it (camelCase, like the family's bodies). */
export interface CommissionRuleObject {
  id: string;
  object: 'marketplace_commission_rule';
  name: string;
  percentBasisPoints: number;
  fixedFeeMinor: number;
  currency: string;
  isActive: boolean;
  /** `active` or `inactive`: the list filter and the read model's status column. */
  status: 'active' | 'inactive';
  livemode: boolean;
  created: number;
  updated: number;
}

export interface CommissionRuleCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  name: string;
  percentBasisPoints: number;
  fixedFeeMinor: number;
  currency: string;
  isActive: boolean;
  createdAt: string;
}

export interface CommissionRuleTerms {
  percentBasisPoints: number;
  fixedFeeMinor: number;
  isActive: boolean;
}

type WithObject<D> = D & { object: CommissionRuleObject };

export type CommissionRuleEvent = DomainEvent<'commission_rule.created', WithObject<CommissionRuleCreated>> | DomainEvent<'commission_rule.updated', WithObject<CommissionRuleTerms & { at: string }>>;

export const commissionRuleStream = (id: string) => `commission_rule-${id}`;

/**
 * The commission a rule takes on an order line of `amount`: `percentBasisPoints` of it, rounded
 * half up to the minor unit, plus `fixedFeeMinor`, never more than the line itself.
 */
export function commissionOn(rule: Pick<CommissionRuleTerms, 'percentBasisPoints' | 'fixedFeeMinor'>, amount: number): number {
  // BigInt: amount × basis points can pass 2^53 for the largest amounts.
  const percent = (BigInt(amount) * BigInt(rule.percentBasisPoints) + 5_000n) / 10_000n;
  return Math.min(amount, Number(percent) + rule.fixedFeeMinor);
}
