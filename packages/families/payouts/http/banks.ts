import type { AccountHolderLookup, BankList } from '../payout/banks.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { payoutsRead, requesterOf } from '#packages/http/route-kit.js';

const currency = { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, any case: the currency the bank account is paid in' };
const bankCode = { type: 'string', minLength: 1, maxLength: 64, description: "The bank's `code`, as `GET /api/v1/banks` lists it" };
const accountNumber = { type: 'string', minLength: 1, maxLength: 64, description: 'The account number; spaces are removed (a Nigerian NUBAN has 10 digits)' };

interface BanksQuery {
  currency: string;
}
interface LookupBody {
  currency: string;
  bank_code: string;
  account_number: string;
}

/**
 * /api/v1/banks: the banks a payout can go to in a currency, and the bank's name for an account's
 * holder before paying it (docs/payouts.md, "Bank accounts"), as the dashboard's bank payout form
 * uses them.
 */
export function banksRoutes(banks: BankList, holders: AccountHolderLookup): RouteGroup {
  return {
    name: 'banks',
    description: "Bank accounts as payout destinations: the banks of a currency, and the bank's name for an account's holder, asked before paying it.",
    routes: [
      route<unknown, BanksQuery>({
        method: 'get',
        path: '/api/v1/banks',
        summary: 'The banks a payout can go to in a currency',
        description:
          "Lists the banks of `currency` that the environment's rail pays out to, by name, with the `code` a bank destination (`destination.bank_code`) names. In live they are the rail's own list (Paystack's for NGN and GHS), kept for an hour; in sandbox a fixed list that uses live's codes for NGN and GHS, so an integration keeps them. Use it to fill a bank picker; a currency no rail pays bank accounts in is refused (`IKW-PRV-001`).",
        refusals: ['IKW-PRV-001'],
        auth: payoutsRead,
        query: { type: 'object', additionalProperties: false, required: ['currency'], properties: { currency } },
        response: {
          type: 'object',
          required: ['object', 'currency', 'data'],
          properties: {
            object: { const: 'list', description: 'The kind of object: always `list`' },
            currency: { type: 'string', description: 'ISO 4217, lower case: the currency asked for' },
            data: {
              type: 'array',
              description: 'The banks, by name',
              items: {
                type: 'object',
                required: ['object', 'code', 'name'],
                properties: {
                  object: { const: 'bank', description: 'The kind of object: always `bank`' },
                  code: { type: 'string', description: "The bank's code on the rail: a bank destination's `bank_code`" },
                  name: { type: 'string', description: "The bank's name, as the rail gives it" },
                },
              },
            },
          },
        },
        handler: async (ctx) => ({
          object: 'list',
          currency: ctx.query.currency.toLowerCase(),
          data: (await banks.list(ctx.owner, ctx.query.currency)).map((b) => ({ object: 'bank', code: b.code, name: b.name })),
        }),
      }),
      route<LookupBody>({
        method: 'post',
        path: '/api/v1/banks/account-holder',
        summary: "The bank's name for the holder of an account, asked before paying it",
        description: [
          "Asks the account's bank whose it is, so that whoever pays sees whom the money goes to before confirming, and the payout's `account_name` can be the bank's (where the rail checks names, NGN and GHS, a payout naming someone else is refused with `IKW-PRV-010`). Nothing is held or paid. `account_name` is null where the currency's banks tell no names: the payout then carries the name you give.",
          '',
          "A lookup tells a name, so each one counts against your credential in the same allowance as payouts' refused name checks (`RATE_LIMIT_NAME_CHECK`, 10 an hour by default; `429 IKW-LIM-001` when over), unless the bank could not answer. The name shows whole to a signed-in user whose role may pay out; an API key reads it masked to initials (`A** O**`, `masked: true`). An account the bank does not know is `IKW-PRV-011`. In sandbox every account is held by `TEST ACCOUNT HOLDER`, but one ending in `01`, which no bank knows.",
        ].join('\n'),
        refusals: ['IKW-PRV-001', 'IKW-PRV-002', 'IKW-PRV-005', 'IKW-ACT-006', 'IKW-PRV-011', 'IKW-PRV-012', 'IKW-VAL-001', 'IKW-LIM-001'],
        auth: { scope: 'payouts.write', environmentHeader: 'required' },
        body: { type: 'object', additionalProperties: false, required: ['currency', 'bank_code', 'account_number'], properties: { currency, bank_code: bankCode, account_number: accountNumber } },
        response: {
          type: 'object',
          required: ['object', 'currency', 'bank_code', 'account_number', 'account_name', 'masked'],
          properties: {
            object: { const: 'bank_account_holder', description: 'The kind of object: always `bank_account_holder`' },
            currency: { type: 'string', description: 'ISO 4217, lower case' },
            bank_code: { type: 'string', description: "The bank's code, as given" },
            account_number: { type: 'string', description: 'The account number, spaces removed' },
            account_name: { type: ['string', 'null'], description: "The holder's name as the bank gives it (masked to initials when `masked`); null when the currency's banks tell no names" },
            masked: { type: 'boolean', description: "`true` when `account_name` is masked to initials: the credential may not read holders' names whole (an API key, a user whose role does not pay out)" },
          },
        },
        handler: async (ctx) => {
          const account = { currency: ctx.body.currency, bank_code: ctx.body.bank_code.trim(), account_number: ctx.body.account_number.replace(/\s+/g, '') };
          const holder = await holders.lookUp(ctx.owner, account, requesterOf(ctx, undefined), ctx.actor);
          return { object: 'bank_account_holder', ...account, currency: account.currency.toLowerCase(), account_name: holder.accountName, masked: holder.masked };
        },
      }),
    ],
  };
}
