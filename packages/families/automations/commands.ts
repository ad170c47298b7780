import type { Clock } from '#packages/core/clock.js';
import { refuseEvery, type ItemError } from '#packages/core/errors.js';
import { derivedId, newId } from '#packages/core/ids.js';
import { generateSigningSecret, type SecretBox } from '#packages/core/secrets.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import { hasScope } from '#packages/core/scopes.js';
import type { TemplateKind } from '#packages/families/templates/index.js';
import { checkEndpointUrl } from '#packages/webhooks/url-policy.js';
import { automationDecider, currentVersion, type AutomationCommand, type AutomationState } from './decider.js';
import { definitionProblems, inDefinitionOrder, LIMITS, scopesNeeded, type Definition, type Step, type Trigger } from './definition.js';
import { automationStream, type AutomationEvent } from './events.js';
import type { Cidr } from '#packages/core/cidr.js';
import { sealHeaders } from './headers.js';
import type { Actor, Credential, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

export interface AutomationInput {
  name: string;
  description?: string | null;
  trigger: Definition['trigger'];
  steps: Definition['steps'];
  enabled?: boolean;
}

/** Who saves a version: the credential it records, and the scopes that credential holds now. */
export interface Saver {
  credential: Credential;
  scopes: readonly string[];
}

/**
 * 403 IKW-AUT-004 naming the first needed scope that `scopes` lack and the part that needs it: an
 * automation does only what the credential behind it could do itself.
 */
export function assertMayRun(scopes: readonly string[], needed: ReturnType<typeof scopesNeeded>): void {
  const missing = needed.find((n) => !hasScope(scopes, n.scope));
  if (missing) throw new Refusal('IKW-AUT-004', `This credential lacks the scope ${missing.scope}, which ${missing.param} needs`, missing.param);
}

export interface AutomationDeps {
  store: EventStore;
  clock: Clock;
  box: SecretBox;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the same URL policy as webhooks (sandbox only). */
  allowedPrivateRanges: readonly Cidr[];
  /** The kind of this owner's template, if it has one with this id (not deleted). */
  templateKind(owner: Owner, id: string): Promise<TemplateKind | undefined>;
}

/** Whether a parameter is a Liquid template (checked when the step runs) rather than a fixed value (checked now). */
const isTemplated = (value: string) => value.includes('{{') || value.includes('{%');

/** Automations: definitions and their versions, enable, disable, delete; the runner disables failing ones. */
export class Automations extends CommandService<AutomationCommand, AutomationState, AutomationEvent> {
  /** Client commands answer a lost race with 409 (the default `none`); only the runner's disable decides again. */
  constructor(private readonly deps: AutomationDeps) {
    super(deps.store, automationStream, automationDecider);
  }

  /**
   * The schema was checked by the route; these are the checks that need more: ids, cron, templates,
   * URLs. Every problem is reported at once (ItemsRefused, in the definition's order), the first as
   * the answer's own code and param.
   */
  async check(owner: Owner, input: AutomationInput): Promise<Definition> {
    refuseEvery(await this.problemsBeyondSchema(owner, input));
    return { name: input.name, description: input.description ?? null, trigger: input.trigger, steps: input.steps };
  }

  /**
   * The problems of a definition beyond its schema, in its order. Given the schema's own problems
   * (`refused`, from a body the schema refused), only the parts it accepted are looked at (the
   * trigger, each step), so that one answer can list both kinds.
   */
  async problemsBeyondSchema(owner: Owner, input: unknown, refused: readonly ItemError[] = []): Promise<ItemError[]> {
    // A problem of the whole body (no param) leaves nothing to look at; one of a part, that part.
    const accepted = (path: string) => !refused.some((p) => p.param === undefined || p.param === path || p.param.startsWith(`${path}.`));
    const body = (typeof input === 'object' && input !== null ? input : {}) as Partial<Record<keyof AutomationInput, unknown>>;
    const trigger = body.trigger !== undefined && accepted('trigger') ? (body.trigger as Trigger) : undefined;
    // Steps past the most a definition holds (a problem of the schema's) are not looked up one by one.
    const steps = Array.isArray(body.steps) ? body.steps.slice(0, LIMITS.maxSteps).map((step, i) => (accepted(`steps.${i}`) ? (step as Step) : undefined)) : [];
    const problems = definitionProblems({ trigger, steps }, this.deps.clock.now());
    for (const [i, step] of steps.entries()) {
      const problem = step && (await this.stepProblem(owner, step, `steps.${i}.params`));
      if (problem) problems.push(problem);
    }
    return inDefinitionOrder(problems);
  }

  /**
   * As problemsBeyondSchema, of an update's changes over the automation's current definition, as
   * update() makes it: none when it changes no part of the definition (`enabled` alone), nor when
   * the automation is not this owner's (the route says so).
   */
  async updateProblemsBeyondSchema(owner: Owner, id: string, changes: unknown, refused: readonly ItemError[]): Promise<ItemError[]> {
    const { enabled: _enabled, ...definitionChanges } = (typeof changes === 'object' && changes !== null ? changes : {}) as Record<string, unknown>;
    if (Object.keys(definitionChanges).length === 0) return [];
    const { state } = await this.load(id);
    if (state.deleted || !isOwned(state.automation, owner)) return [];
    return this.problemsBeyondSchema(owner, { ...currentVersion(state).definition, ...definitionChanges }, refused);
  }

  /** What is wrong with a step's fixed template or URL (templated ones are checked when the step runs), if anything. */
  private async stepProblem(owner: Owner, step: Step, at: string): Promise<ItemError | null> {
    const params = step.params as Record<string, unknown>;
    if (step.action === 'send_email' || step.action === 'send_sms') {
      const templateId = params.templateId as string;
      if (isTemplated(templateId)) return null;
      const kind = await this.deps.templateKind(owner, templateId);
      const wanted = step.action === 'send_email' ? 'email' : 'sms';
      if (kind !== wanted) {
        return { code: 'IKW-ATM-003', message: kind ? `Template ${templateId} is an ${kind} template; ${step.action} needs an ${wanted} template` : `No such template: '${templateId}'`, param: `${at}.templateId` };
      }
    }
    if (step.action === 'http_request' && !isTemplated(params.url as string)) {
      const checked = checkEndpointUrl(params.url as string, { environment: owner.environment, allowedPrivateRanges: this.deps.allowedPrivateRanges });
      if (!checked.ok) return { code: 'IKW-WHK-001', message: checked.message, param: `${at}.url` };
    }
    return null;
  }

  /** Creates an automation (enabled unless `enabled: false`); the answer holds its signing secret, once. */
  async create(owner: Owner, input: AutomationInput, actor: Actor, saver: Saver, requestRef?: string): Promise<{ state: AutomationState; secret: string | null }> {
    const checked = await this.check(owner, input);
    assertMayRun(saver.scopes, scopesNeeded(checked));
    const id = requestRef === undefined ? newId('auto') : derivedId('auto', `${owner.merchantId}|${owner.environment}|automation|${requestRef}`);
    if (requestRef !== undefined) {
      // A retry after a crash: the automation the first attempt made (its secret was never shown, so it is lost: rotate by re-creating).
      const earlier = await this.load(id);
      if (earlier.state.automation) return { state: earlier.state, secret: null };
    }
    const at = this.deps.clock.now();
    const definition = sealHeaders(checked, this.deps.box, id, null);
    const plain = generateSigningSecret();
    const result = await this.run(
      id,
      {
        type: 'create',
        automation: {
          id,
          merchantId: owner.merchantId,
          environment: owner.environment,
          version: { version: 1, definition, createdAt: at.toISOString(), credential: saver.credential },
          enabled: input.enabled ?? true,
          secret: { sealed: this.deps.box.seal(plain), last4: plain.slice(-4), createdAt: at.toISOString() },
          createdAt: at.toISOString(),
        },
      },
      auditMetadata(this.deps.clock, owner, id, actor),
    );
    return { state: result.state, secret: plain };
  }

  /**
   * Changes given over the current definition (as the stream holds it) make a new version; runs
   * under way finish with the version they started with. An update that lands in between is a
   * 409, never silently undone. The new version is the saver's: it needs the scopes of the whole
   * definition, not only of the changes. `enabled` alone only enables or disables.
   */
  async update(owner: Owner, id: string, changes: Partial<AutomationInput>, actor: Actor, saver: Saver): Promise<void> {
    const { enabled, ...definitionChanges } = changes;
    if (Object.keys(definitionChanges).length > 0) {
      const { state } = await this.load(id);
      assertOwned(state.deleted ? null : state.automation, owner, 'No such automation', 'automationId');
      const current = currentVersion(state);
      const checked = await this.check(owner, { ...current.definition, ...definitionChanges });
      assertMayRun(saver.scopes, scopesNeeded(checked));
      const definition = sealHeaders(checked, this.deps.box, id, current.definition);
      await this.run(id, { type: 'update', owner, at: this.deps.clock.now(), definition, basedOn: current.version, credential: saver.credential }, auditMetadata(this.deps.clock, owner, id, actor));
    }
    if (enabled !== undefined) await this.setEnabled(owner, id, enabled, actor);
  }

  async setEnabled(owner: Owner, id: string, enabled: boolean, actor: Actor): Promise<AutomationState> {
    return (await this.run(id, { type: enabled ? 'enable' : 'disable', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor))).state;
  }

  async delete(owner: Owner, id: string, actor: Actor): Promise<void> {
    await this.run(id, { type: 'delete', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor));
  }

  /** The runner's: disables an enabled automation after repeated failed runs; true on that transition (tell the merchant once). */
  async disableForFailures(owner: Owner, id: string, failures: number, lastError: string): Promise<boolean> {
    const result = await this.run(id, { type: 'disable_for_failures', owner, at: this.deps.clock.now(), failures, lastError }, auditMetadata(this.deps.clock, owner, id, { actor: 'automation-runner' }), 'internal');
    return result.events.length > 0;
  }
}
