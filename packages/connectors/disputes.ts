import type { Environment } from '#packages/core/owner.js';

/**
 * Card disputes as a rail that carries them tells and takes them (docs/disputes.md): what the
 * disputes family reads after a rail's verified news, and how it answers. Not on the rail port:
 * only card rails have disputes (today Paystack), and the family asks for this alone.
 */

/** Where a dispute stands at the rail, in Sika's words. */
export type RailDisputeStage = 'needs_response' | 'under_review' | 'won' | 'lost' | 'accepted';

/** A dispute as the rail's API gives it: read, never believed from a webhook's body. */
export interface RailDispute {
  /** The rail's id of the dispute. */
  disputeId: string;
  /** Sika's operation the disputed charge was made under (its reference at the rail); null when the charge is not Sika's. */
  operationId: string | null;
  /** The payment intent the charge's metadata names, when it came back. */
  paymentIntentId: string | null;
  /** The disputed charge's money, in Sika's minor units and lower-case currency. */
  charge: { amount: number; currency: string };
  /** The disputed amount (the charge's unless the rail says less). */
  amount: number;
  stage: RailDisputeStage;
  reason: string;
  /** When evidence is due (ISO 8601); null when the rail gives none. */
  evidenceDueBy: string | null;
}

/** The merchant's answer to a dispute, as the rail takes it. */
export interface DisputeEvidence {
  customerEmail: string;
  customerName: string;
  customerPhone: string;
  serviceDetails: string;
  deliveryAddress?: string;
  /** YYYY-MM-DD. */
  deliveryDate?: string;
}

/** A file sent with an answer to a dispute: its name, media type and bytes. */
export interface DisputeFile {
  name: string;
  contentType: string;
  bytes: Buffer;
}

/** The disputed money, in Sika's minor units: what the rail's calls restate. */
export interface DisputedMoney {
  amount: number;
  currency: string;
}

/** A rail's disputes API, as the disputes family calls it. */
export interface DisputeRail {
  readonly name: string;
  /** The dispute as the rail has it now; null when the rail knows no such dispute. */
  readDispute(disputeId: string): Promise<RailDispute | null>;
  /** Uploads a file to the dispute; the rail's name of the uploaded file, which the answers then name. Throws when the rail did not take it. */
  uploadDisputeFile(disputeId: string, file: DisputeFile): Promise<string>;
  /** Sends the merchant's evidence with the files uploaded for it; throws when the rail did not take it. */
  submitDisputeEvidence(disputeId: string, evidence: DisputeEvidence, uploadedFiles: readonly string[], money: DisputedMoney): Promise<void>;
  /** Accepts the dispute: the payer keeps the money; the uploaded file says so. Throws when the rail did not take it. */
  acceptDispute(disputeId: string, money: DisputedMoney, uploadedFile: string): Promise<void>;
}

/** Verified news of a dispute: which rail account told it, and the rail's id to read. */
export interface DisputeNews {
  connector: string;
  environment: Environment;
  disputeId: string;
}
