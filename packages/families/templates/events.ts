import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** What a template renders: a message (e-mail, SMS) or a document made into a PDF (receipt, invoice). */
export const TEMPLATE_KINDS = ['email', 'sms', 'receipt', 'invoice'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/**
 * The Liquid texts of one locale. E-mail: `subject`, `text` and optionally `html`; SMS: `text`;
 * documents: `title` and `text` (its lines are the document's body).
 */
export interface LocaleContent {
  subject?: string;
  html?: string;
  text: string;
  title?: string;
}

/** A JSON Schema of an object: the variables a template takes, checked at every render. */
export type VariableSchema = Record<string, unknown>;

/** One immutable version of a template's content. Updates add versions; a render uses the published one. */
export interface TemplateVersion {
  version: number;
  variables: VariableSchema;
  locales: Record<string, LocaleContent>;
  defaultLocale: string;
  /** What a preview renders when it is given no data. */
  sampleData: Record<string, unknown> | null;
  createdAt: string;
}

export interface TemplateCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  kind: TemplateKind;
  name: string;
  /** The service's own message this template replaces for the merchant (docs/templates.md), or null. */
  purpose: string | null;
  version: TemplateVersion;
  createdAt: string;
}

export type TemplateEvent =
  | DomainEvent<'template.created', TemplateCreated>
  | DomainEvent<'template.renamed', { id: string; name: string; at: string }>
  | DomainEvent<'template.version_added', { id: string; version: TemplateVersion }>
  | DomainEvent<'template.version_published', { id: string; version: number; at: string }>
  | DomainEvent<'template.deleted', { id: string; at: string }>;

export const templateStream = (id: string) => `template-${id}`;
