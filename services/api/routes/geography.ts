import { getCountry, listCountries } from '#packages/catalog/index.js';
import type { Country, Direction, Operator } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import { route, type RouteGroup } from '#packages/http/routes.js';

interface CountriesQuery {
  direction?: Direction;
  country?: string;
}

const limitsSchema = {
  type: 'object',
  required: ['min', 'max'],
  properties: { min: { type: 'integer', description: 'The smallest amount, in minor units' }, max: { type: 'integer', description: 'The largest amount, in minor units' } },
};

const operatorSchema = {
  type: 'object',
  required: ['id', 'name', 'directions', 'limits', 'decimals', 'payout_expected_minutes'],
  properties: {
    id: { type: 'string', description: 'Operator code to send as `operator`, e.g. `orange_money`' },
    name: { type: 'string', description: "The operator's name as payers know it (`Orange Money`)" },
    directions: {
      type: 'array',
      description: 'What the operator serves',
      items: { type: 'string', enum: ['payin', 'payout'], 'x-enumDescriptions': { payin: 'Collects payments from wallets', payout: 'Sends payouts to wallets' } },
    },
    limits: {
      type: 'object',
      description: 'Per direction served: inclusive amount limits in minor units',
      properties: { payin: { ...limitsSchema, description: 'The limits of a payment' }, payout: { ...limitsSchema, description: 'The limits of a payout' } },
    },
    decimals: { type: 'integer', description: 'Decimals the operator accepts in amounts' },
    payout_expected_minutes: { type: ['integer', 'null'], description: 'Minutes after which a payout is expected to be final; null for payin-only operators' },
  },
};

const countrySchema = {
  type: 'object',
  required: ['object', 'id', 'name', 'currency', 'calling_code', 'operators'],
  properties: {
    object: { const: 'country', description: 'The kind of object: always `country`' },
    id: { type: 'string', description: 'ISO 3166-1 alpha-2, upper case' },
    name: { type: 'string', description: "The country's name in English" },
    currency: { type: 'string', description: 'ISO 4217, lower case' },
    calling_code: { type: 'string', description: "With '+', e.g. +221" },
    operators: { type: 'array', items: operatorSchema, description: 'Its mobile money operators (only those serving `direction`, when given)' },
  },
};

function renderOperator(o: Operator) {
  const limits: Partial<Record<Direction, { min: number; max: number }>> = {};
  for (const d of o.directions) {
    const l = o.limits[d];
    if (l) limits[d] = { min: l.min, max: l.max };
  }
  return {
    id: o.code,
    name: o.name,
    directions: [...o.directions],
    limits,
    decimals: o.decimals,
    payout_expected_minutes: o.directions.includes('payout') ? o.payoutExpectedMinutes : null,
  };
}

function renderCountry(c: Country, direction: Direction | undefined) {
  return {
    object: 'country' as const,
    id: c.code,
    name: c.name,
    currency: c.currency.toLowerCase(),
    calling_code: `+${c.callingCode}`,
    operators: c.operators.filter((o) => direction === undefined || o.directions.includes(direction)).map(renderOperator),
  };
}

/** The operator catalog (docs/catalog.md): countries, their currency and mobile money operators. */
export function geographyRoutes(): RouteGroup {
  return {
    name: 'geography',
    description: 'The countries Sika serves, with their currencies, calling codes and mobile money operators.',
    routes: [
      route<unknown, CountriesQuery>({
        method: 'get',
        path: '/api/v1/geography/countries',
        summary: 'Countries served, with currency, calling code and mobile money operators (limits, directions)',
        description:
          "The catalog Sika checks payments and payouts against (docs/catalog.md): each country served, with its currency and calling code, and each mobile money operator with the directions it serves, its amount limits, the decimals it takes and how soon its payouts are expected to be final. Build your payment or payout forms from it: the operator `id` is what `payment_method.mobile_money.operator` and a payout destination's `operator` take. `direction` keeps the operators serving it; `country` answers one country (`IKW-VAL-004` for one not served). The whole catalog comes in one answer.",
        refusals: ['IKW-VAL-004'],
        auth: { scope: 'catalog.read' },
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            direction: {
              type: 'string',
              enum: ['payin', 'payout'],
              description: 'Only operators serving this direction (and countries that have one)',
              'x-enumDescriptions': { payin: 'Operators that collect payments', payout: 'Operators that take payouts' },
            },
            country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, any case' },
          },
        },
        response: {
          type: 'object',
          required: ['object', 'data', 'has_more', 'url'],
          properties: {
            object: { const: 'list', description: 'The kind of object: always `list`' },
            data: { type: 'array', items: countrySchema, description: "The countries, in the catalog's order" },
            has_more: { type: 'boolean', description: 'Always false: the catalog is returned whole' },
            url: { type: 'string', description: 'The path of this list' },
          },
        },
        handler: async (ctx) => {
          const { direction, country } = ctx.query;
          let countries: Country[];
          if (country !== undefined) {
            const found = getCountry(country);
            if (!found) throw new ApiError('IKW-VAL-004', `Unknown or unsupported country: '${country}'`, 'country');
            countries = [found];
          } else {
            countries = listCountries();
          }
          const data = countries.map((c) => renderCountry(c, direction)).filter((c) => direction === undefined || c.operators.length > 0);
          return { object: 'list', data, has_more: false, url: ctx.path };
        },
      }),
    ],
  };
}
