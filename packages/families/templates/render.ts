import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { CaptureTag, Context, Liquid, toPromise, toValue, type Emitter, type Template } from 'liquidjs';
import type { LocaleContent, TemplateKind, TemplateVersion, VariableSchema } from './events.js';
import { Refusal } from '#packages/core/refusal.js';

/**
 * Rendering with Liquid (liquidjs): a sandboxed engine that evaluates expressions and filters but
 * runs no code and reads no file (`templates: {}` makes include/render/layout find nothing).
 * Limits bound the parse and render time and memory of a hostile template, and what a render may
 * write (MAX_RENDERED_BYTES). HTML parts escape every output (`outputEscape: 'escape'`); subjects,
 * texts and SMS do not (they are not HTML).
 */
const LIMITS = { parseLimit: 100_000, renderLimit: 1_000, memoryLimit: 10_000_000 };
const common = { templates: {}, strictFilters: true, ownPropertyOnly: true, ...LIMITS };

/**
 * The most bytes (UTF-8) one render may write: every field of a template together, and text kept
 * with `capture` too (it is written out, or not, later). Checked at each write, so a loop stops at
 * the limit instead of building hundreds of MB within the render time limit.
 */
export const MAX_RENDERED_BYTES = 1_000_000;

/** What one render has written so far, across its fields. */
class OutputBudget {
  used = 0;
  exceeded = false;

  charge(text: string): void {
    this.used += Buffer.byteLength(text, 'utf8');
    if (this.used > MAX_RENDERED_BYTES) {
      this.exceeded = true;
      throw new Error(`the rendered output is over ${MAX_RENDERED_BYTES} bytes`);
    }
  }
}

/** An output's text as liquidjs writes it (its SimpleEmitter's rule). */
function textOf(value: unknown): string {
  const v: unknown = toValue(value);
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(textOf).join('');
  return String(v);
}

/** Collects what a render writes, charging each write to the render's budget before keeping it. */
class BoundedEmitter implements Emitter {
  buffer = '';

  constructor(private readonly budget: OutputBudget) {}

  write(html: unknown): void {
    const text = textOf(html);
    this.budget.charge(text);
    this.buffer += text;
  }
}

/** The budget of the render a context belongs to (capture renders into its own emitter, on the same context). */
const budgets = new WeakMap<Context, OutputBudget>();

/** `capture` as liquidjs has it, but writing into a bounded emitter: captured text counts like output. */
class BoundedCaptureTag extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const emitter = new BoundedEmitter(budgets.get(ctx) ?? new OutputBudget());
    yield this.liquid.renderer.renderTemplates(this.templates, ctx, emitter);
    ctx.bottom()[this.variable] = emitter.buffer;
  }
}

function engine(options: ConstructorParameters<typeof Liquid>[0]): Liquid {
  const liquid = new Liquid(options);
  liquid.registerTag('capture', BoundedCaptureTag);
  return liquid;
}
const textEngine = engine(common);
const htmlEngine = engine({ ...common, outputEscape: 'escape' });

/** Renders `source` with `scope`, every write charged to `budget` (which throws past the limit). */
async function renderBounded(liquid: Liquid, source: string, scope: Record<string, unknown>, budget: OutputBudget): Promise<string> {
  const templates = liquid.parse(source);
  const ctx = new Context(scope, liquid.options, { sync: false }, { liquid });
  budgets.set(ctx, budget);
  const emitter = new BoundedEmitter(budget);
  await toPromise(liquid.renderer.renderTemplates(templates, ctx, emitter));
  return emitter.buffer;
}

/** The fields a kind's content must have, and the ones it may have. */
const FIELDS: Record<TemplateKind, { required: (keyof LocaleContent)[]; allowed: (keyof LocaleContent)[] }> = {
  email: { required: ['subject', 'text'], allowed: ['subject', 'text', 'html'] },
  sms: { required: ['text'], allowed: ['text'] },
  receipt: { required: ['title', 'text'], allowed: ['title', 'text'] },
  invoice: { required: ['title', 'text'], allowed: ['title', 'text'] },
};

const engineFor = (field: keyof LocaleContent) => (field === 'html' ? htmlEngine : textEngine);

// ajv-formats is CommonJS; under NodeNext its function is the `default` property of the module.
const addFormats = formats.default;
const ajv = new Ajv({ allErrors: false, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: true });
addFormats(ajv);
const validators = new Map<string, ValidateFunction>();

/** The compiled validator of a variable schema (a few hundred kept: one per template version in use). */
function validatorOf(schema: VariableSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(schema);
    if (validators.size >= 500) validators.delete(validators.keys().next().value!);
    validators.set(key, v);
  }
  return v;
}

/** The root variables a text uses; IKW-TPL-001 when it does not parse (or names an unknown filter). */
function variablesOf(field: keyof LocaleContent, source: string, param: string): string[] {
  try {
    const engine = engineFor(field);
    const parsed: Template[] = engine.parse(source);
    return engine.globalVariablesSync(parsed);
  } catch (err) {
    throw new Refusal('IKW-TPL-001', `${param}: ${err instanceof Error ? err.message : String(err)}`, param);
  }
}

/**
 * Checks a version before it is stored: each locale has its kind's fields (and no other), each
 * text parses, the variable schema compiles and describes an object, and every variable a text
 * uses is declared in it (so a render cannot reach something undeclared).
 */
export function checkVersion(kind: TemplateKind, version: Pick<TemplateVersion, 'variables' | 'locales' | 'defaultLocale'>): void {
  const schema = version.variables;
  if (schema.type !== 'object') throw new Refusal('IKW-TPL-002', 'variables must be a JSON Schema with type "object"', 'variables');
  try {
    validatorOf(schema);
  } catch (err) {
    throw new Refusal('IKW-TPL-002', `variables: ${err instanceof Error ? err.message : String(err)}`, 'variables');
  }
  const declared = new Set(Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}));
  if (!(version.defaultLocale in version.locales)) throw new Refusal('IKW-TPL-004', `defaultLocale '${version.defaultLocale}' has no content in locales`, 'defaultLocale');
  const { required, allowed } = FIELDS[kind];
  for (const [locale, content] of Object.entries(version.locales)) {
    for (const field of required) {
      if (typeof content[field] !== 'string') throw new Refusal('IKW-VAL-001', `A ${kind} template needs ${field} in every locale`, `locales.${locale}.${field}`);
    }
    for (const field of Object.keys(content) as (keyof LocaleContent)[]) {
      if (!allowed.includes(field)) throw new Refusal('IKW-VAL-002', `A ${kind} template has no ${field}`, `locales.${locale}.${field}`);
      const param = `locales.${locale}.${field}`;
      for (const name of variablesOf(field, content[field]!, param)) {
        if (!declared.has(name)) throw new Refusal('IKW-TPL-002', `${param} uses the variable '${name}', which variables does not declare`, param);
      }
    }
  }
}

function dataError(e: ErrorObject): Refusal {
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    const param = ['data', path, missing].filter(Boolean).join('.');
    return new Refusal('IKW-TPL-003', `Missing variable: ${param}`, param);
  }
  const param = ['data', path].filter(Boolean).join('.');
  return new Refusal('IKW-TPL-003', `${param} ${e.message ?? 'is invalid'}`, param);
}

/** Checks data against a version's variable schema: IKW-TPL-003 naming the first variable at fault. */
export function checkData(version: Pick<TemplateVersion, 'variables'>, data: Record<string, unknown>): void {
  const validate = validatorOf(version.variables);
  if (!validate(data)) throw dataError(validate.errors![0]!);
}

export interface Rendered {
  locale: string;
  subject?: string;
  html?: string;
  text: string;
  title?: string;
}

/** The locale to render: the one asked for (IKW-TPL-004 when the template lacks it), else the default. */
function chooseLocale(version: TemplateVersion, locale: string | undefined): string {
  if (locale === undefined) return version.defaultLocale;
  if (locale in version.locales) return locale;
  throw new Refusal('IKW-TPL-004', `This template has no content in locale '${locale}'; it has ${Object.keys(version.locales).join(', ')}`, 'locale');
}

/** The order a render writes a locale's fields in (stored content keeps no order): the output limit is crossed in a known one. */
const RENDER_ORDER: (keyof LocaleContent)[] = ['subject', 'title', 'text', 'html'];

/** Renders every field of a locale with `data`, once the data matches the variable schema. */
export async function renderVersion(version: TemplateVersion, data: Record<string, unknown>, locale?: string): Promise<Rendered> {
  const chosen = chooseLocale(version, locale);
  checkData(version, data);
  const content = version.locales[chosen]!;
  const out: Rendered = { locale: chosen, text: '' };
  const budget = new OutputBudget();
  for (const field of RENDER_ORDER.filter((f) => content[f] !== undefined)) {
    const param = `locales.${chosen}.${field}`;
    try {
      out[field] = await renderBounded(engineFor(field), content[field]!, data, budget);
    } catch (err) {
      if (budget.exceeded) throw new Refusal('IKW-TPL-006', `${param} writes more than ${MAX_RENDERED_BYTES} bytes with this data (every field of a render together), the most a render may write`, param);
      // Parsed when stored, so what fails here is a limit or a filter's input (e.g. date of a non-date).
      throw new Refusal('IKW-TPL-003', `${param} could not be rendered with this data: ${err instanceof Error ? err.message : String(err)}`, 'data');
    }
  }
  return out;
}

/** Renders one Liquid text (an automation step's parameter) with `scope`; no escaping, no variable schema, the same output limit. */
export async function renderText(source: string, scope: Record<string, unknown>): Promise<string> {
  const budget = new OutputBudget();
  try {
    return await renderBounded(textEngine, source, scope, budget);
  } catch (err) {
    if (budget.exceeded) throw new Error(`The text writes more than ${MAX_RENDERED_BYTES} bytes, the most a render may write`, { cause: err });
    throw err;
  }
}

/** Whether a kind is a document (rendered to PDF) rather than a message. */
export const isDocument = (kind: TemplateKind) => kind === 'receipt' || kind === 'invoice';
