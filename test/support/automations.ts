/** Helpers of the automation suites: templates to send, automations to create, runs to read. */
import type { TestService } from './system.js';

export const AUTOMATIONS = '/api/v1/automations';

/** A published template of `kind` ('email' or 'sms') that takes the payment intent's amount and currency. */
export async function publishedTemplate(svc: TestService, key: string, kind: 'email' | 'sms'): Promise<string> {
  const locales =
    kind === 'email' ? { en: { subject: 'Payment of {{ amount }} {{ currency | upcase }}', text: 'We saw your payment of {{ amount }}.', html: '<b>{{ amount }}</b>' } } : { en: { text: 'Sika: payment of {{ amount }} {{ currency }}' } };
  const res = await svc.request('POST', '/api/template-engine/templates', {
    key,
    body: { kind, name: `${kind} notice`, variables: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer' }, currency: { type: 'string' } } }, locales, publish: true },
  });
  if (res.status !== 200) throw new Error(`template create failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export interface CreatedAutomation {
  id: string;
  secret: string;
  status: string;
  version: number;
}

export async function createAutomation(svc: TestService, key: string, body: Record<string, unknown>): Promise<CreatedAutomation> {
  const res = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'Automation', ...body } });
  if (res.status !== 200) throw new Error(`automation create failed: ${res.status} ${res.text}`);
  return res.body as CreatedAutomation;
}

/** An automation on payment_intent.created with these steps. */
export const onPaymentIntent = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ trigger: { type: 'event', eventType: 'payment_intent.created' }, steps, ...extra });

export async function runsOf(svc: TestService, key: string, automationId: string): Promise<{ id: string; status: string; error: string | null; test: boolean }[]> {
  const res = await svc.request('GET', `${AUTOMATIONS}/${automationId}/runs?limit=100`, { key });
  if (res.status !== 200) throw new Error(`runs failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function runOf(svc: TestService, key: string, automationId: string, runId: string) {
  const res = await svc.request('GET', `${AUTOMATIONS}/${automationId}/runs/${runId}`, { key });
  if (res.status !== 200) throw new Error(`run failed: ${res.status} ${res.text}`);
  return res.body as { id: string; status: string; error: string | null; logs: { step: string; action: string; attempt: number; status: string; input: any; output: any; error: string | null; durationMs: number }[] };
}
