import { MAX_AMOUNT } from '#packages/catalog/index.js';
import { hasScope } from '#packages/core/scopes.js';
import { isTimeZone } from '#packages/core/time-zone.js';
import { ApiError, notFound } from '#packages/core/errors.js';
import { cursorListQuery, pageListQuery, type CreatedRange } from '#packages/read-models/paging.js';
import type { HandlerContext } from './context.js';
import { route, type Route, type RouteAuth } from './routes.js';
import type { PageQuery } from '#packages/read-models/paging.js';
import type { JsonSchema } from './validation.js';
import type { Owner, Requester } from '#packages/core/owner.js';

/**
 * What the route families of this folder share: scopes, schemas and the small helpers their
 * handlers use. Not a family itself: families import this module and never each other.
 */

export const payoutsRead: RouteAuth = { scope: 'payouts.read', environmentHeader: 'required' };

/** The account routes: a signed-in user's own access token (docs/accounts.md). */
export const signedIn: RouteAuth = { scope: 'account', appTokenOnly: true };

export const payoutsWrite: RouteAuth = { scope: 'payouts.write', environmentHeader: 'required', idempotencyKeyInLive: 'required' };

/** Who asks for a guarded change: the signed-in user of an access token with the challenge given, or a credential with no second factor (an API key). */
export function requesterOf(ctx: Pick<HandlerContext<unknown, unknown, unknown>, 'principal'>, challengeId: string | undefined): Requester {
  const userId = ctx.principal.user?.userId ?? null;
  return { userId, challengeId: challengeId ?? null, seesHolderNames: userId !== null && hasScope(ctx.principal.scopes, payoutsWrite.scope) };
}

/** The value of the cookie `name` in a request's Cookie header, if it sent one. */
export function cookieOf(ctx: Pick<HandlerContext<unknown, unknown, unknown>, 'header'>, name: string): string | undefined {
  for (const pair of (ctx.header('cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** Path parameters naming one object, e.g. `:id` or `:invoiceId`. */
export const idParamsOf = (name: string) => ({ type: 'object', properties: { [name]: { type: 'string', minLength: 1, maxLength: 255 } }, required: [name] });

export const idParams = idParamsOf('id');

/**
 * The fields every API object shares, in Stripe's manner, and what each means wherever it appears:
 * an object's schema that declares one without words of its own gets these (resourceSchema).
 */
const COMMON_FIELDS: Readonly<Record<string, string>> = {
  created: 'When the object was created, in Unix seconds',
  updated: 'When the object last changed, in Unix seconds',
  livemode: '`true` for an object of the live environment, `false` for sandbox',
  metadata: 'Key–value pairs of strings the merchant attached to the object, returned as they were given',
};

/** The response schema of an API object: its `id` and `object`, then `properties`; `required` names those always present. */
export function resourceSchema(object: string, required: string[], properties: Record<string, JsonSchema>) {
  const described = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      const words = COMMON_FIELDS[name];
      return [name, words !== undefined && typeof schema === 'object' && schema !== null && !('description' in schema) ? { ...schema, description: words } : schema];
    }),
  );
  return {
    type: 'object',
    required: ['id', 'object', ...required],
    properties: {
      id: { type: 'string', description: 'Unique identifier of the object, with a prefix naming its kind' },
      object: { const: object, description: `The kind of object: always \`${object}\`` },
      ...described,
    },
  };
}

const LIST_OBJECT = { const: 'list', description: 'The kind of object: always `list`' };

const LIST_DATA = (item: JsonSchema) => ({ type: 'array', items: item, description: 'The objects of this page, newest first unless the operation says otherwise' });

/** A cursor-paged list of `item` objects (the /api/v1 lists). */
export function cursorListSchema(item: JsonSchema) {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more'],
    properties: {
      object: LIST_OBJECT,
      data: LIST_DATA(item),
      has_more: { type: 'boolean', description: "Whether more objects follow: pass the last object's id as `starting_after` to fetch them (docs/pagination.md)" },
      url: { type: 'string', description: 'The path of this list' },
    },
  };
}

/** An event as webhooks and the events API carry it (docs/events.md). */
export const eventSchema = {
  type: 'object',
  required: ['id', 'object', 'type', 'created', 'livemode', 'data'],
  properties: {
    id: { type: 'string', description: "The event's id (`evt_…`): the same in every delivery of it, so a receiver can drop repeats" },
    object: { const: 'event', description: 'The kind of object: always `event`' },
    type: { type: 'string', description: 'What happened, as `<object>.<change>` (docs/events.md lists every type)' },
    created: { type: 'integer', description: 'When it happened, in Unix seconds' },
    livemode: { type: 'boolean', description: '`true` for an event of the live environment, `false` for sandbox' },
    data: { type: 'object', description: 'The object the event is about, as it was right after the change' },
  },
};

/** An event of one object's history: the Event object, with who caused it. */
export const historyEventSchema = {
  ...eventSchema,
  properties: {
    ...eventSchema.properties,
    actor: { type: ['string', 'null'], description: 'Who caused it: `user:<id>` (a dashboard user), the id of an API key, or the service (`system`, `scheduler`, …); null for events kept before actors were' },
  },
};

/** A whole list of `item` objects, not paged (a user's passkeys, a team's members, the countries). */
export function listSchema(item: JsonSchema) {
  return { type: 'object', required: ['object', 'data'], properties: { object: LIST_OBJECT, data: { type: 'array', items: item, description: 'Every object of the list' } } };
}

/** A page of a page-based merchant list of `item` objects (`/api/v1/merchant/*`). */
export function pageListSchema(item: JsonSchema) {
  return {
    type: 'object',
    required: ['object', 'data', 'page', 'limit', 'total', 'has_more'],
    properties: {
      object: LIST_OBJECT,
      data: LIST_DATA(item),
      page: { type: 'integer', description: 'The number of this page, from 1' },
      limit: { type: 'integer', description: 'The most objects a page holds' },
      total: { type: 'integer', description: 'How many objects match, on every page' },
      has_more: { type: 'boolean', description: 'Whether a page follows this one' },
    },
  };
}

/** ISO 4217, any case. */
export const currencySchema = { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'A three-letter ISO 4217 currency code, in any case (`XOF`, `ngn`)' };

/** ISO 3166-1 alpha-2, any case. */
export const countrySchema = { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'A two-letter ISO 3166-1 country code, in any case (`SN`, `ci`)' };

/** A positive amount, in minor units of the currency, of a body that moves money. */
export const amountFields = {
  amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: 'The amount in minor units of the currency (XOF has none: 5000 is 5,000 F CFA; NGN has kobo: 500000 is ₦5,000)' },
  currency: currencySchema,
};

/** Merchant metadata of billing objects and payouts: string values, Stripe's limits. */
export const metadataSchema = {
  type: 'object',
  description: 'Up to 50 key–value pairs of your own (keys up to 40 characters, values up to 500), returned as given; Sika never reads them',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: 'string', maxLength: 500 },
};

/** The query schema of a page-based list (`/api/v1/merchant/*`) with its filters. */
export const pageQuery = (filters: Record<string, JsonSchema> = {}) => ({ ...pageListQuery, properties: { ...pageListQuery.properties, ...filters } });

/** The query schema of a cursor-paged list with its filters. */
export const cursorQuery = (filters: Record<string, JsonSchema> = {}) => ({ ...cursorListQuery, properties: { ...cursorListQuery.properties, ...filters } });

/** What a lookup found, or the IKW-RES-001 that names the `noun` and the id the caller has none of. */
export async function found<T>(noun: string, id: string, lookup: Promise<T | undefined>): Promise<T> {
  const object = await lookup;
  if (object === undefined) throw notFound(noun, id);
  return object;
}

/** GET …/:id: the caller's object that `find` gives, or 404 IKW-RES-001 naming `noun` (another merchant's object too). */
export function retrieveRoute<T>(r: {
  path: string;
  noun: string;
  summary: string;
  auth: RouteAuth;
  response: JsonSchema;
  find(owner: Owner, id: string): Promise<T | undefined>;
  /** The public object of what was found, when the row is not it already. */
  render?(found: T): unknown;
}): Route {
  return route<unknown, unknown, { id: string }>({
    method: 'get',
    path: r.path,
    summary: r.summary,
    auth: r.auth,
    params: idParams,
    response: r.response,
    handler: async (ctx) => {
      const object = await found(r.noun, ctx.params.id, r.find(ctx.owner, ctx.params.id));
      return r.render ? r.render(object) : object;
    },
  });
}

/** GET of a page-based list of the caller's objects (`/api/v1/merchant/*`), with its filters. */
export function pageListRoute<Filters>(r: {
  path: string;
  summary: string;
  auth: RouteAuth;
  filters?: Record<string, JsonSchema>;
  /** The schema of the listed objects, for the API reference. */
  item: JsonSchema;
  list(owner: Owner, query: PageQuery & Filters): Promise<unknown>;
}): Route {
  return route<unknown, PageQuery & Filters>({
    method: 'get',
    path: r.path,
    summary: r.summary,
    auth: r.auth,
    query: pageQuery(r.filters),
    response: pageListSchema(r.item),
    handler: (ctx) => r.list(ctx.owner, ctx.query),
  });
}

/** Escapes text for the hosted HTML pages. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An absolute http(s) URL the customer is sent to. */
export const returnUrlSchema = { type: 'string', maxLength: 2048, pattern: '^https?://[^\\s]+$' };

/** Whether the client is a browser that asked for a page (hosted pages answer their refusals as HTML to it, as JSON to programs). */
export function wantsHtml(accept: string | undefined): boolean {
  const value = accept ?? '';
  return value.includes('text/html') && !/application\/json/.test(value.split('text/html')[0] ?? '');
}

/** A moment as the API writes one (Unix seconds), up to the year 9999 so that every value is a date. */
export const unixTimeQuery = { type: 'integer', minimum: 0, maximum: 253_402_300_799 } as const;

/** The last millisecond of Unix second `seconds`: "at or before T" includes all of second T, as `created` floors. */
export const endOfSecond = (seconds: number): Date => new Date(seconds * 1000 + 999);

/** The `created[gt|gte|lt|lte]` filters of a list, in Unix seconds. */
export const createdQuery = {
  'created[gt]': { ...unixTimeQuery, description: 'Only objects created after this time (Unix seconds)' },
  'created[gte]': { ...unixTimeQuery, description: 'Only objects created at or after this time (Unix seconds)' },
  'created[lt]': { ...unixTimeQuery, description: 'Only objects created before this time (Unix seconds)' },
  'created[lte]': { ...unixTimeQuery, description: 'Only objects created at or before this time (Unix seconds)' },
};

export type CreatedQuery = { 'created[gt]'?: number; 'created[gte]'?: number; 'created[lt]'?: number; 'created[lte]'?: number };

/** `created[…]` in Unix seconds as instants: a bound on a second covers all of it, as `created` is floored. */
export function createdRange(q: CreatedQuery): CreatedRange {
  const range: CreatedRange = {};
  if (q['created[gt]'] !== undefined) range.gt = endOfSecond(q['created[gt]']);
  if (q['created[gte]'] !== undefined) range.gte = new Date(q['created[gte]'] * 1000);
  if (q['created[lt]'] !== undefined) range.lt = new Date(q['created[lt]'] * 1000);
  if (q['created[lte]'] !== undefined) range.lte = endOfSecond(q['created[lte]']);
  return range;
}

/** An export's `time_zone` (an IANA name such as Africa/Dakar; UTC when left out): its times are written there. */
export const timeZoneQuery = {
  time_zone: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+/-]+$', description: 'An IANA time zone (`Africa/Dakar`) the CSV export writes its times in; UTC when absent' },
};

/** The time zone an export asked for, or UTC; one this runtime does not know is IKW-VAL-001 on `time_zone`. */
export function exportTimeZone(zone: string | undefined): string {
  if (zone === undefined) return 'UTC';
  if (!isTimeZone(zone)) throw new ApiError('IKW-VAL-001', `Unknown time zone: '${zone}'`, 'time_zone');
  return zone;
}
