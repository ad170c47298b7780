import type { SecretBox } from '#packages/core/secrets.js';
import type { Definition, Step } from './definition.js';

/**
 * The header values of http_request steps (`Authorization: Bearer …`) are credentials of the
 * merchant's own servers: sealed at rest (the event log, the read model, a run's copy of its
 * steps), opened only to make the call, and answered redacted (docs/automations.md, "Definitions").
 */

/** A header value as a stored definition holds it: sealed, with the end it is shown by. */
export interface SealedHeader {
  sealed: string;
  last4: string;
}

/** Values this short show no character: four would be half of them or more. */
const SHORTEST_SHOWN = 9;

const lastFour = (plain: string) => (plain.length >= SHORTEST_SHOWN ? plain.slice(-4) : '');

/** How a header value is answered: `…` and its last four characters. */
export const redactedHeader = (last4: string) => `…${last4}`;

/** Of a value as stored: sealed (an object), or a plain string in a version saved before headers were sealed. */
const isSealed = (value: unknown): value is SealedHeader => typeof value === 'object' && value !== null && 'sealed' in value;

const redactedStored = (value: unknown) => redactedHeader(isSealed(value) ? value.last4 : lastFour(String(value)));

/** A sealed value opens only as this automation's header of this name: it cannot be moved to another. */
const context = (automationId: string, name: string) => `automation-header:${automationId}:${name}`;

function headersOf(step: Step | undefined): Record<string, unknown> | undefined {
  return step?.action === 'http_request' ? (step.params.headers as Record<string, unknown> | undefined) : undefined;
}

function withHeaders(step: Step, headers: Record<string, unknown>): Step {
  return { ...step, params: { ...step.params, headers } };
}

/**
 * The definition to store, its header values sealed. A value that is the answer's redacted form of
 * the header of the same name in the step of the same id (what a client read and sent back), or that
 * opens to the same value, keeps that stored value, so an update that changes nothing else makes no
 * new version; a plain value of an older version kept this way is sealed now.
 */
export function sealHeaders(definition: Definition, box: SecretBox, automationId: string, previous: Definition | null): Definition {
  const previousSteps = new Map((previous?.steps ?? []).map((s) => [s.id, headersOf(s)]));
  const steps = definition.steps.map((step) => {
    const headers = headersOf(step);
    if (!headers) return step;
    const before = previousSteps.get(step.id) ?? {};
    const sealed = Object.fromEntries(
      Object.entries(headers).map(([name, value]): [string, SealedHeader] => {
        if (isSealed(value)) return [name, value];
        const plain = String(value);
        const stored = Object.hasOwn(before, name) ? before[name] : undefined;
        if (stored !== undefined) {
          if (isSealed(stored) && (plain === redactedStored(stored) || plain === box.open(stored.sealed, context(automationId, name)))) return [name, stored];
          if (!isSealed(stored) && plain === redactedStored(stored)) return [name, { sealed: box.seal(String(stored), context(automationId, name)), last4: lastFour(String(stored)) }];
        }
        return [name, { sealed: box.seal(plain, context(automationId, name)), last4: lastFour(plain) }];
      }),
    );
    return withHeaders(step, sealed);
  });
  return { ...definition, steps };
}

/** Steps as answers show them: each header value redacted. */
export function redactSteps(steps: readonly Step[]): Step[] {
  return steps.map((step) => {
    const headers = headersOf(step);
    return headers ? withHeaders(step, Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redactedStored(value)]))) : step;
  });
}

/** The parameters of a stored step with its header values opened, to make the call. */
export function openHeaders(step: Step, box: SecretBox, automationId: string): Record<string, unknown> {
  const headers = headersOf(step);
  if (!headers) return step.params;
  return { ...step.params, headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, isSealed(value) ? box.open(value.sealed, context(automationId, name)) : value])) };
}

/** Rendered parameters as a step log records them: each header value redacted (by the end of its rendered value). */
export function redactRenderedHeaders(params: Record<string, unknown>): Record<string, unknown> {
  const headers = params.headers as Record<string, string> | undefined;
  return headers === undefined ? params : { ...params, headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redactedHeader(lastFour(value))])) };
}
