import type { ReadSide } from '#packages/read-models/read-side.js';
import { intelligencePaymentsProjection } from './intelligence-payments.js';
import { intelligenceDecisionsProjection } from './intelligence-decisions.js';

/** Intelligence: payment KPIs and lifecycles, decisions, and the facts context suggestions read. */
export const intelligenceReadSide: ReadSide = {
  family: 'intelligence',
  readModels: [intelligencePaymentsProjection, intelligenceDecisionsProjection],
};

// The queries other code reads this family by.
export {
  ACTIVE_DAYS,
  CHURN_DAYS,
  type KpiDimension,
  type KpiRange,
  LIFECYCLE_STAGES,
  type LifecycleStage,
  checkRange,
  findCustomerLifecycle,
  kpiBreakdown,
  kpiTotals,
  lifecycleCounts,
  lifecycleCustomers,
  operatorFigures,
} from './intelligence-payments.js';
export { DECISION_KINDS, type DecisionKind, findDecision, listDecisions } from './intelligence-decisions.js';
export { merchantFacts } from './merchant-facts.js';
