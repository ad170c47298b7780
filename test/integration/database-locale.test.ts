/**
 * The embedded cluster's locale is PostgreSQL's builtin C.UTF-8 whatever the machine's LANG
 * (packages/core/embedded-postgres.ts): text orders by code point, as ids and cursors assume, and
 * case maps by Unicode, as `lower(email)` and a search's ILIKE need for names with accents.
 */
import pg from 'pg';
import t from '#tap';
import { freshDatabase } from '../support/db.js';

t.test('a database of the embedded cluster orders text by code point and case maps by Unicode', async (t) => {
  const client = new pg.Client({ connectionString: await freshDatabase(t) });
  await client.connect();
  t.teardown(() => client.end());
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> => (await client.query<{ v: T }>(`SELECT ${sql} AS v`, params)).rows[0]!.v;

  t.same(
    await one<{ provider: string; locale: string }>("(SELECT json_build_object('provider', datlocprovider, 'locale', datlocale) FROM pg_database WHERE datname = current_database())"),
    { provider: 'b', locale: 'C.UTF-8' },
    'the builtin provider, C.UTF-8',
  );
  const words = ['école', 'Zoé', 'pi_b', 'pi_B', 'pi_a', 'Éric', 'ñu', 'zèbre'];
  t.same(await one<string[]>('(SELECT array_agg(w ORDER BY w) FROM unnest($1::text[]) AS w)', [words]), [...words].sort(), 'ORDER BY gives the order of code points, as JavaScript sorts these');
  t.equal(await one<string>("lower('ÉCOLE Zoé Ñ')"), 'école zoé ñ', 'lower() maps accented capitals');
  t.equal(await one<string>("upper('ñandú')"), 'ÑANDÚ');
  t.equal(await one<boolean>("'Café Éclair' ILIKE '%éclair%'"), true, 'ILIKE ignores the case of accented letters');
});
