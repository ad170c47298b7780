import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { ErrorTable } from '#packages/core/errors.js';
import type { ChartPart } from '#packages/ledger/chart.js';
import type { ReadSide } from '#packages/read-models/read-side.js';
import type { LedgerPart } from '#packages/ledger/decider.js';
import type { PublicEvents } from '#packages/core/public-events.js';
import type { Process } from '#packages/processes/process.js';
import type { Kernel } from './kernel.js';
import type { RouteGroup } from '#packages/http/routes.js';
import type { RailChoice } from '#packages/connectors/router.js';
import type { SavedCard } from '#packages/connectors/paystack/index.js';
import type { Country } from '#packages/catalog/index.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * What families offer to registries other families own (a payment recipient, …). Each owner adds
 * its part by declaration merging in its manifest, so this file knows no family.
 */
export interface Registrations {}

// Manifests of any API and needs: what a list holds.
export type AnyFamily = FamilyModule<any, readonly any[]>;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The API a family's build returns. */
export type ApiOf<F> = F extends FamilyModule<infer Api, readonly AnyFamily[]> ? Api : never;
/** The APIs of these families, merged into one object (`unknown` for none). */
export type ApisOf<Families extends readonly AnyFamily[]> = UnionToIntersection<ApiOf<Families[number]>>;

/**
 * One family's manifest (docs/architecture.md, "Families"): what it is made of and how it is built
 * on the kernel. Its build returns its services as a named object merged into the System, so
 * `svc.payouts` is the payouts family's `payouts`.
 */
export interface FamilyModule<Api extends object, Needs extends readonly AnyFamily[] = readonly []> {
  readonly name: string;
  /** The families whose built API this one calls: built before it, and all it is given. */
  readonly needs: Needs;
  /** Its read side (`read/index.ts` in its folder): the read models it keeps and the histories read.object_events keeps of its objects. */
  readonly readSide?: ReadSide;
  /** Its error codes (`errors.ts` in its folder): what its refusals answer with, besides the kernel's. */
  readonly errors?: ErrorTable;
  /** The kinds of ledger account its postings name (packages/ledger/chart.ts): its part of the chart of accounts. */
  readonly accounts?: ChartPart;
  /** Its kinds of hold and the state its postings fold from entries (packages/ledger/decider.ts, docs/ledger.md). */
  readonly ledger?: LedgerPart;
  /** Its job kinds (packages/processes): the scheduler runs exactly the kinds families declare. */
  readonly processes?: readonly Process<never>[];
  /** Its public events (packages/families/<family>/[<aggregate>/]public-events.ts): what webhooks deliver and automations are triggered by. */
  readonly publicEvents?: readonly PublicEvents[];
  /** Its bus consumers, made from what it built. */
  consumers?(api: Api, kernel: Kernel): ConsumerSpec[];
  /** What it offers to registries other families own. */
  registrations?(api: Api): Registrations;
  /** Takes what every family registered into the registries it owns, once all are built. */
  collect?(api: Api, registrations: readonly Registrations[]): void;
  build(kernel: Kernel, needs: ApisOf<Needs>): Api;
}

/** A manifest, its API and needs inferred. */
export function defineFamily<Api extends object, const Needs extends readonly AnyFamily[] = readonly []>(family: FamilyModule<Api, Needs>): FamilyModule<Api, Needs> {
  return family;
}

/**
 * What the composition root adds for the families' routers besides the kernel and the families'
 * services: views of the rails it opens, which no family builds.
 */
export interface EdgeServices {
  /** What carries each method of a country in live, and why nothing does (GET /api/v1/configuration). */
  liveRailChoices(country: Country): Promise<RailChoice[]>;
  /** A customer's saved cards, newest first (GET /api/v1/customers/{id}/cards). */
  savedCards(owner: Owner, customerId: string): Promise<SavedCard[]>;
}

/** The running system as a family's routers see it: the kernel, the services of the family, of its needs and of `Also` (other families its routes call), and the edge's. */
export type EdgeSystemOf<F extends AnyFamily, Also extends readonly AnyFamily[] = readonly []> = Kernel & ApiOf<F> & ApisOf<F['needs']> & ApisOf<Also> & EdgeServices;

/** A family's routers (`RouteGroup` of packages/http, one per route file), each built from the running system as the family sees it. */
export interface FamilyRouters<System> {
  readonly routers: readonly ((system: System) => RouteGroup)[];
  /** Routers whose schemas list every scope an API key may hold: built after all the others, from the scopes those ask for. */
  readonly keyScoped?: readonly ((system: System, keyScopes: readonly string[]) => RouteGroup)[];
}

/**
 * A family as the family list holds it: its manifest, and its routers (`http/routers.ts` in its
 * folder). They are paired here, in the list, since a manifest cannot import its routes: they read
 * other families' faces, whose manifests would import their routes in turn.
 */
export type ListedFamily<F extends AnyFamily = AnyFamily> = F & { readonly http?: FamilyRouters<never> };

/** Pairs a manifest with its routers, for the family list. */
export function withRouters<F extends AnyFamily>(manifest: F, http: FamilyRouters<never>): ListedFamily<F> {
  return { ...manifest, http };
}

export interface BuiltFamilies<Api> {
  /** Every family's services, merged. */
  api: Api;
  /** Every family's bus consumers, in list order. */
  consumers: ConsumerSpec[];
}

/**
 * Builds the families in list order, each given the APIs of its needs (which must come before it),
 * then hands every registration to the families that collect them.
 */
export function buildFamilies<Families extends readonly AnyFamily[]>(kernel: Kernel, families: Families): BuiltFamilies<ApisOf<Families>> {
  // By name: the list holds each manifest paired with its routers (withRouters), a copy of the manifest its dependants name.
  const built = new Map<string, object>();
  const owners = new Map<string, string>(Object.keys(kernel).map((property) => [property, 'the kernel']));
  for (const family of families) {
    const missing = family.needs.filter((need: AnyFamily) => !built.has(need.name));
    if (missing.length > 0) throw new Error(`The family ${family.name} needs ${missing.map((f: AnyFamily) => f.name).join(', ')} listed before it`);
    const api: object = family.build(kernel, Object.assign({}, ...family.needs.map((need: AnyFamily) => built.get(need.name))));
    for (const property of Object.keys(api)) {
      const owner = owners.get(property);
      if (owner) throw new Error(`${owner} and the family ${family.name} both name ${property}`);
      owners.set(property, family.name);
    }
    built.set(family.name, api);
  }
  const registrations = families.flatMap((family) => (family.registrations ? [family.registrations(built.get(family.name))] : []));
  for (const family of families) family.collect?.(built.get(family.name), registrations);
  const consumers = new Map<string, { family: string; spec: ConsumerSpec }>();
  for (const family of families) {
    for (const spec of family.consumers?.(built.get(family.name), kernel) ?? []) {
      const owner = consumers.get(spec.name);
      if (owner) throw new Error(`The families ${owner.family} and ${family.name} both declare the consumer ${spec.name}`);
      consumers.set(spec.name, { family: family.name, spec });
    }
  }
  return {
    api: Object.assign({}, ...built.values()) as ApisOf<Families>,
    consumers: [...consumers.values()].map(({ spec }) => spec),
  };
}

/**
 * A registry of exactly one: the service another family offers in its registrations (billing's
 * customers as the payers', merchants' way to open one), asked only once every family is built.
 * None registered leaves it unusable, and two is a bug.
 */
export class RegisteredOnce<T> {
  private registered: T | undefined;

  constructor(private readonly what: string) {}

  register(...offered: T[]): void {
    if (offered.length + (this.registered ? 1 : 0) > 1) throw new Error(`${this.what} is registered by more than one family`);
    this.registered ??= offered[0];
  }

  get(): T {
    if (!this.registered) throw new Error(`No family registered ${this.what}`);
    return this.registered;
  }
}
