import type { Knex } from 'knex';
import { isRefused } from '#packages/core/refusal.js';
import type { Logger } from '#packages/core/logger.js';
import { builtInTemplate } from './defaults.js';
import type { TemplateVersion } from './events.js';
import { renderPdf } from './pdf.js';
import { renderVersion, type Rendered } from './render.js';
import { publishedTemplateFor } from './read/templates.js';
import type { Owner } from '#packages/core/owner.js';
import type { ComposedMessage, DocumentComposer } from '#packages/messaging/messages.js';

/**
 * Writes the service's own messages with the template engine (docs/templates.md): the
 * merchant's published template for the message's purpose, else the built-in one. A merchant's
 * template that does not render with the service's values (its schema asks for more) falls back to
 * the built-in one, logged: a message is never lost to a template mistake.
 */
export class TemplateComposer implements DocumentComposer {
  constructor(
    private readonly knex: Knex,
    private readonly log: Logger,
  ) {}

  /** `locale`: the reader's language (a payer's), when the template has it; else the template's default. */
  async compose(owner: Owner | null, purpose: string, values: Record<string, unknown>, locale?: string): Promise<ComposedMessage> {
    return this.message(await this.render(owner, purpose, values, locale));
  }

  /**
   * A document of the service (a receipt, an invoice) as a PDF, from the merchant's template or the
   * built-in one: a merchant's document that cannot be made (over a limit, docs/templates.md)
   * falls back to the built-in one like a message does.
   */
  async document(owner: Owner, purpose: string, values: Record<string, unknown>, at: Date): Promise<Buffer> {
    const custom = await this.custom(owner, purpose, values);
    if (custom) {
      try {
        return await renderPdf(custom.rendered, at);
      } catch (err) {
        if (!isRefused(err)) throw err;
        this.log.warn({ err, template: custom.template, purpose }, 'merchant document could not be made; the built-in one is used');
      }
    }
    return renderPdf(await this.builtIn(purpose, values), at);
  }

  private async render(owner: Owner | null, purpose: string, values: Record<string, unknown>, locale?: string): Promise<Rendered> {
    return (owner ? await this.custom(owner, purpose, values, locale) : undefined)?.rendered ?? this.builtIn(purpose, values, locale);
  }

  /** The merchant's published template for the purpose rendered with the values, if it has one that renders. */
  private async custom(owner: Owner, purpose: string, values: Record<string, unknown>, locale?: string): Promise<{ template: string; rendered: Rendered } | undefined> {
    const custom = await publishedTemplateFor(this.knex, owner, purpose);
    if (!custom) return undefined;
    try {
      return { template: custom.row.id, rendered: await renderVersion(custom.version, values, inLocales(custom.version, locale)) };
    } catch (err) {
      this.log.warn({ err, template: custom.row.id, purpose }, 'merchant template did not render; the built-in one is used');
      return undefined;
    }
  }

  private builtIn(purpose: string, values: Record<string, unknown>, locale?: string): Promise<Rendered> {
    const builtIn = builtInTemplate(purpose);
    if (!builtIn) throw new Error(`No built-in template for ${purpose}`);
    const version = { ...builtIn.version, createdAt: '' } as TemplateVersion;
    return renderVersion(version, values, inLocales(version, locale));
  }

  private message(out: Rendered): ComposedMessage {
    return { subject: out.subject ?? '', text: out.text, ...(out.html !== undefined ? { html: out.html } : {}) };
  }
}

/** The locale asked for when the template has it; else none (its default), never a refusal of the message. */
const inLocales = (version: Pick<TemplateVersion, 'locales'>, locale: string | undefined) => (locale !== undefined && locale in version.locales ? locale : undefined);
