/**
 * The pieces of the rendered reference (/docs) that need no browser: the guides' markdown renders
 * nothing but what markdown makes (raw HTML shown as text), their links go to guide pages or stay
 * as text; the code samples are made from the operation; the search worker taken out of Redoc's
 * bundle is a script.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import t from '#tap';
import { codeSamples } from '../../services/api/reference/code-samples.js';
import { guides } from '../../services/api/reference/guides.js';
import { searchWorkerOf, withEnumWords } from '../../services/api/reference/site.js';

t.test('a guide: headings with their anchors, links to guides rewritten, links into the repository as text', async (t) => {
  const webhooks = guides().get('webhooks')!;
  t.equal(webhooks.title, 'Webhooks');
  t.match(webhooks.html, /<h3 id="verifying-a-request-nodejs">Verifying a request \(Node\.js\)<\/h3>/, "GitHub's anchors, which the docs link to");
  t.match(webhooks.html, /<a href="\/docs\/guides\/events">events\.md<\/a>/, 'a link to another guide goes to its page');
  t.notMatch(webhooks.html, /href="(?!https?:|#|\/docs\/guides\/)/, 'no link to a file the site does not serve');
  t.match(guides().get('api-keys-and-going-live')!.html, /users, sessions, organizations|accounts\.md/, 'a link to a page that is not a guide keeps its text');
  t.notMatch(guides().get('api-keys-and-going-live')!.html, /href="accounts\.md"/, 'without the link');
});

t.test("every guide's links to guides lead to a guide", async (t) => {
  t.ok(
    ['authentication', 'environments', 'idempotency', 'pagination', 'errors', 'sandbox-testing', 'webhooks', 'api-keys-and-going-live'].every((name) => guides().has(name)),
    "the issue's integrator topics each have a page",
  );
  for (const guide of guides().values()) {
    for (const [, name] of guide.html.matchAll(/href="\/docs\/guides\/([^"#]+)/g)) t.ok(guides().has(name!), `${guide.name} links to the guide ${name}`);
  }
  t.match(guides().get('environments')!.html, /<a href="\/docs\/guides\/idempotency">Idempotency<\/a>/, 'a link between two guides goes to its page');
});

t.test('raw HTML in a guide is shown, not obeyed', async (t) => {
  for (const guide of guides().values()) {
    t.notMatch(guide.html, /<script|<iframe|<img|<style|\son\w+=/i, `${guide.name}: no element or handler markdown does not make`);
  }
});

t.test('code samples are written from the operation', async (t) => {
  const operation = {
    security: [{ apiKey: ['payouts.write'] }],
    parameters: [
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'X-Environment', in: 'header', required: true, schema: { enum: ['sandbox', 'live'] } },
      { name: 'Idempotency-Key', in: 'header', schema: { type: 'string' } },
    ],
    requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'integer', minimum: 1 }, note: { type: 'string' } } } } } },
  };
  const [curl, typescript] = codeSamples('/api/v1/things/{id}/act', 'post', operation);
  t.equal(curl!.label, 'curl');
  t.equal(
    curl!.source,
    [
      `curl -X POST "$SIKA_API_BASE/api/v1/things/%3Cid%3E/act" \\`,
      `  -H "Authorization: Bearer $SIKA_API_KEY" \\`,
      `  -H "X-Environment: sandbox" \\`,
      `  -H "Idempotency-Key: $(uuidgen)" \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d '{\n  "amount": 1\n}'`,
    ].join('\n'),
    'credential, environment, key and a body of the required fields',
  );
  t.match(typescript!.source, /await sika\.post\('\/api\/v1\/things\/\{id\}\/act', \{\n  params: \{ path: \{\n    "id": "<id>"\n  \} \},\n  body: \{\n    "amount": 1\n  \},\n\}\);/);

  const publicGet = codeSamples('/health', 'get', {});
  t.equal(publicGet[0]!.source, 'curl -X GET "$SIKA_API_BASE/health"', 'a public operation: no credential, no body');
  const withExample = codeSamples('/x', 'post', { requestBody: { content: { 'application/json': { schema: { type: 'object', examples: [{ a: "it's" }] } } } } });
  t.match(withExample[0]!.source, /-d '\{\n  "a": "it'\\''s"\n\}'$/, "the schema's example, quoted for the shell");
});

t.test("the search worker taken out of Redoc's bundle is a script", async (t) => {
  const bundle = fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles/redoc.standalone.js'), 'utf8');
  const worker = searchWorkerOf(bundle);
  t.doesNotThrow(() => new vm.Script(worker), 'it parses');
  t.match(worker, /lunr/, "lunr's index, which the search runs on");
  t.throws(() => searchWorkerOf('no worker here'), /no search worker/, 'a bundle without it is said at once');
});

t.test("an enum's values are described in the drawn reference, under the schema's own words", async (t) => {
  const schema = { type: 'object', properties: { status: { enum: ['paid', 'failed'], description: 'Where it stands', 'x-enumDescriptions': { paid: 'The money arrived', failed: 'It will not' } } } };
  withEnumWords(schema);
  t.equal(schema.properties.status.description, 'Where it stands\n\n- `paid`: The money arrived\n- `failed`: It will not');
  const bare = { enum: ['a'], 'x-enumDescriptions': { a: 'The first' } } as Record<string, unknown>;
  withEnumWords(bare);
  t.equal(bare.description, '- `a`: The first', 'a schema without words of its own gets the list alone');
});
