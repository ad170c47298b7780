import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';
import { Liquid, type Template } from 'liquidjs';
import PDFDocument from 'pdfkit';
import { ApiError } from '../../core/errors.js';
import type { LocaleContent, TemplateKind, TemplateVersion, VariableSchema } from './events.js';

/**
 * Rendering with Liquid (liquidjs): a sandboxed engine that evaluates expressions and filters but
 * runs no code and reads no file (`templates: {}` makes include/render/layout find nothing).
 * Limits bound the parse and render time and memory of a hostile template. HTML parts escape every
 * output (`outputEscape: 'escape'`); subjects, texts and SMS do not (they are not HTML).
 */
const LIMITS = { parseLimit: 100_000, renderLimit: 1_000, memoryLimit: 10_000_000 };
const common = { templates: {}, strictFilters: true, ownPropertyOnly: true, ...LIMITS };
const textEngine = new Liquid(common);
const htmlEngine = new Liquid({ ...common, outputEscape: 'escape' });

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
    throw new ApiError('IKW-TPL-001', `${param}: ${err instanceof Error ? err.message : String(err)}`, param);
  }
}

/**
 * Checks a version before it is stored: each locale has its kind's fields (and no other), each
 * text parses, the variable schema compiles and describes an object, and every variable a text
 * uses is declared in it (so a render cannot reach something undeclared).
 */
export function checkVersion(kind: TemplateKind, version: Pick<TemplateVersion, 'variables' | 'locales' | 'defaultLocale'>): void {
  const schema = version.variables;
  if (schema.type !== 'object') throw new ApiError('IKW-TPL-002', 'variables must be a JSON Schema with type "object"', 'variables');
  try {
    validatorOf(schema);
  } catch (err) {
    throw new ApiError('IKW-TPL-002', `variables: ${err instanceof Error ? err.message : String(err)}`, 'variables');
  }
  const declared = new Set(Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {}));
  if (!(version.defaultLocale in version.locales)) throw new ApiError('IKW-TPL-004', `defaultLocale '${version.defaultLocale}' has no content in locales`, 'defaultLocale');
  const { required, allowed } = FIELDS[kind];
  for (const [locale, content] of Object.entries(version.locales)) {
    for (const field of required) {
      if (typeof content[field] !== 'string') throw new ApiError('IKW-VAL-001', `A ${kind} template needs ${field} in every locale`, `locales.${locale}.${field}`);
    }
    for (const field of Object.keys(content) as (keyof LocaleContent)[]) {
      if (!allowed.includes(field)) throw new ApiError('IKW-VAL-002', `A ${kind} template has no ${field}`, `locales.${locale}.${field}`);
      const param = `locales.${locale}.${field}`;
      for (const name of variablesOf(field, content[field]!, param)) {
        if (!declared.has(name)) throw new ApiError('IKW-TPL-002', `${param} uses the variable '${name}', which variables does not declare`, param);
      }
    }
  }
}

function dataError(e: ErrorObject): ApiError {
  const path = e.instancePath.split('/').filter(Boolean).join('.');
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    const param = ['data', path, missing].filter(Boolean).join('.');
    return new ApiError('IKW-TPL-003', `Missing variable: ${param}`, param);
  }
  const param = ['data', path].filter(Boolean).join('.');
  return new ApiError('IKW-TPL-003', `${param} ${e.message ?? 'is invalid'}`, param);
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
  throw new ApiError('IKW-TPL-004', `This template has no content in locale '${locale}'; it has ${Object.keys(version.locales).join(', ')}`, 'locale');
}

/** Renders every field of a locale with `data`, once the data matches the variable schema. */
export async function renderVersion(version: TemplateVersion, data: Record<string, unknown>, locale?: string): Promise<Rendered> {
  const chosen = chooseLocale(version, locale);
  checkData(version, data);
  const content = version.locales[chosen]!;
  const out: Rendered = { locale: chosen, text: '' };
  for (const field of Object.keys(content) as (keyof LocaleContent)[]) {
    try {
      out[field] = String(await engineFor(field).parseAndRender(content[field]!, data));
    } catch (err) {
      // Parsed when stored, so what fails here is a limit or a filter's input (e.g. date of a non-date).
      throw new ApiError('IKW-TPL-003', `locales.${chosen}.${field} could not be rendered with this data: ${err instanceof Error ? err.message : String(err)}`, 'data');
    }
  }
  return out;
}

/** A rendered document as a PDF (pdfkit): the title, then each line of the text. `createdAt` makes it reproducible. */
export function renderPdf(rendered: Rendered, createdAt: Date): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: rendered.title ?? '', Producer: 'Sika', Creator: 'Sika template engine', CreationDate: createdAt } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    if (rendered.title) doc.font('Helvetica-Bold').fontSize(18).text(rendered.title).moveDown();
    doc.font('Helvetica').fontSize(11).text(rendered.text);
    doc.end();
  });
}

/** Renders one Liquid text (an automation step's parameter) with `scope`; no escaping, no variable schema. */
export async function renderText(source: string, scope: Record<string, unknown>): Promise<string> {
  return String(await textEngine.parseAndRender(source, scope));
}

/** Whether a kind is a document (rendered to PDF) rather than a message. */
export const isDocument = (kind: TemplateKind) => kind === 'receipt' || kind === 'invoice';
