import type { Decision } from './events.js';

const WHERE = 'Your dashboard (Settings, Go live) and GET /api/v1/merchant/activation show where your application stands.';

/** A decision on the application in words, for the merchant (no operator's name: the platform decided). */
export function decisionMail(decision: Decision): { subject: string; text: string } {
  switch (decision.decision) {
    case 'approved':
      return { subject: 'Your Sika account is approved: live payments are open', text: `Your activation application is approved. Your live keys now take real payments and send real payouts.\n\n${WHERE}` };
    case 'rejected':
      return {
        subject: 'Your Sika activation application was not approved',
        text: `Your activation application was not approved, for this reason:\n\n${decision.reason}\n\nYour sandbox keeps working. To contest the decision, write to support.\n\n${WHERE}`,
      };
    case 'information_requested':
      return {
        subject: 'Your Sika activation application needs more information',
        text: `Before deciding, the platform needs more from you:\n\n${decision.fields.map((f) => `- ${f.field}: ${f.message}`).join('\n')}\n\nCorrect these and submit your application again.\n\n${WHERE}`,
      };
    case 'suspended':
      return {
        subject: 'Your Sika account is suspended',
        text: `Your account is suspended, for this reason:\n\n${decision.reason}\n\nNew live payments and payouts are refused; payments and payouts already under way finish. Write to support to have the suspension lifted.\n\n${WHERE}`,
      };
    case 'reinstated':
      return { subject: 'Your Sika account is reinstated: live payments are open again', text: `The suspension of your account is lifted. Your live keys take real payments and send real payouts again.\n\n${WHERE}` };
  }
}
