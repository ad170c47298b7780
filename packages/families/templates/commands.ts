import type { Clock } from '#packages/core/clock.js';
import { derivedId, newId } from '#packages/core/ids.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { latestVersion, templateDecider, type TemplateCommand, type TemplateState } from './decider.js';
import { builtInTemplate } from './defaults.js';
import { templateStream, type LocaleContent, type TemplateEvent, type TemplateKind, type TemplateVersion, type VariableSchema } from './events.js';
import { checkVersion } from './render.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

export interface NewTemplate {
  kind: TemplateKind;
  name: string;
  purpose?: string | null;
  variables: VariableSchema;
  locales: Record<string, LocaleContent>;
  defaultLocale?: string;
  sampleData?: Record<string, unknown> | null;
  publish?: boolean;
}

/** The content fields of an update (and of a preview of unsaved content): each one given replaces the latest version's. */
export interface ContentChanges {
  variables?: VariableSchema;
  locales?: Record<string, LocaleContent>;
  defaultLocale?: string;
  sampleData?: Record<string, unknown> | null;
}

export interface TemplateChanges extends ContentChanges {
  name?: string;
  publish?: boolean;
}

export type VersionContent = Omit<TemplateVersion, 'version' | 'createdAt'>;

/**
 * A version's content with `changes` applied (fields not given are kept; locales that lack the
 * default one move it to their first), checked as a stored version is: what an update stores and
 * what a preview of unsaved content renders are made the same way.
 */
export function changedContent(kind: TemplateKind, base: VersionContent, changes: ContentChanges): VersionContent {
  const content: VersionContent = {
    variables: changes.variables ?? base.variables,
    locales: changes.locales ?? base.locales,
    defaultLocale: changes.defaultLocale ?? (changes.locales && !(base.defaultLocale in changes.locales) ? Object.keys(changes.locales)[0]! : base.defaultLocale),
    sampleData: changes.sampleData !== undefined ? changes.sampleData : base.sampleData,
  };
  checkVersion(kind, content);
  return content;
}

/** Templates: create, update (each content change is a new version), publish a version, delete. */
export class Templates extends CommandService<TemplateCommand, TemplateState, TemplateEvent> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, templateStream, templateDecider);
  }

  /** A command of the owner's on template `id`, audited as the actor's. */
  private command(owner: Owner, id: string, command: TemplateCommand, actor: Actor) {
    return this.run(id, command, auditMetadata(this.deps.clock, owner, id, actor));
  }

  /** `requestRef` (Idempotency-Key) names the template, so a retry after a crash finds it. */
  async create(owner: Owner, input: NewTemplate, actor: Actor, requestRef?: string): Promise<TemplateState> {
    const purpose = input.purpose ?? null;
    if (purpose !== null) {
      const builtIn = builtInTemplate(purpose);
      if (!builtIn?.overridable) throw new Refusal('IKW-VAL-001', `'${purpose}' is not a purpose a template can take; GET /api/template-engine/defaults lists them (overridable: true)`, 'purpose');
      if (builtIn.kind !== input.kind) throw new Refusal('IKW-VAL-001', `A template for ${purpose} must be of kind ${builtIn.kind}`, 'kind');
    }
    const content: VersionContent = {
      variables: input.variables,
      locales: input.locales,
      defaultLocale: input.defaultLocale ?? Object.keys(input.locales)[0]!,
      sampleData: input.sampleData ?? null,
    };
    checkVersion(input.kind, content);
    const id = requestRef === undefined ? newId('tpl') : derivedId('tpl', `${owner.merchantId}|${owner.environment}|template|${requestRef}`);
    if (requestRef !== undefined) {
      const earlier = await this.load(id);
      if (earlier.state.template) return earlier.state;
    }
    const at = this.deps.clock.now();
    const result = await this.command(
      owner,
      id,
      {
        type: 'create',
        at,
        publish: input.publish ?? false,
        template: { id, merchantId: owner.merchantId, environment: owner.environment, kind: input.kind, name: input.name, purpose, version: { ...content, version: 1, createdAt: at.toISOString() }, createdAt: at.toISOString() },
      },
      actor,
    );
    return result.state;
  }

  /**
   * Content changes (variables, locales, default locale, sample data) make a new version from the
   * latest one as the stream holds it; a version added in between is a 409, never silently undone.
   */
  async update(owner: Owner, id: string, input: TemplateChanges, actor: Actor): Promise<TemplateState> {
    const changesContent = input.variables !== undefined || input.locales !== undefined || input.defaultLocale !== undefined || input.sampleData !== undefined;
    const { state } = await this.load(id);
    assertOwned(state.deleted ? null : state.template, owner, 'No such template', 'templateId');
    const latest = latestVersion(state);
    const version = changesContent ? changedContent(state.template!.kind, latest, input) : undefined;
    const result = await this.command(
      owner,
      id,
      { type: 'update', owner, at: this.deps.clock.now(), publish: input.publish ?? false, basedOn: latest.version, ...(input.name !== undefined ? { name: input.name } : {}), ...(version ? { version } : {}) },
      actor,
    );
    return result.state;
  }

  async publish(owner: Owner, id: string, version: number, actor: Actor): Promise<TemplateState> {
    return (await this.command(owner, id, { type: 'publish', owner, at: this.deps.clock.now(), version }, actor)).state;
  }

  async delete(owner: Owner, id: string, actor: Actor): Promise<void> {
    await this.command(owner, id, { type: 'delete', owner, at: this.deps.clock.now() }, actor);
  }
}
