/** The template Decider on its own, and the checks of a version and of the data it is rendered with. */
import t from '#tap';
import { Refusal } from '#packages/core/refusal.js';
import { templateDecider, type TemplateCommand } from '#packages/families/templates/decider.js';
import type { TemplateCreated, TemplateVersion } from '#packages/families/templates/events.js';
import { checkData, checkVersion } from '#packages/families/templates/render.js';
import { spec } from '../../support/decider-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const stranger = { merchantId: 'acct_2', environment: 'sandbox' as const };

const version: TemplateVersion = { version: 1, variables: { type: 'object', properties: { name: { type: 'string' } } }, locales: { en: { text: 'Hi {{ name }}' } }, defaultLocale: 'en', sampleData: null, createdAt: at.toISOString() };
const template: TemplateCreated = { id: 'tpl_1', merchantId: 'acct_1', environment: 'sandbox', kind: 'sms', name: 'Hi', purpose: null, version, createdAt: at.toISOString() };
const templates = spec(templateDecider);
const createTemplate: TemplateCommand = { type: 'create', template, publish: false, at };
const content = { variables: version.variables, locales: { en: { text: 'Hello {{ name }}' } }, defaultLocale: 'en', sampleData: null };

t.test('templates: versions count up, publish picks one, delete ends everything', async (t) => {
  const created = templates.history(createTemplate);
  templates
    .given()
    .when({ ...createTemplate, publish: true })
    .thenMatch(t, [{ type: 'template.created' }, { type: 'template.version_published', data: { version: 1 } }]);
  templates.given(created).when(createTemplate).thenThrows(t, 'IKW-RES-003');
  const v2 = templates
    .given(created)
    .when({ type: 'update', owner, at, version: content, basedOn: 1, publish: false })
    .thenMatch(t, [{ type: 'template.version_added', data: { version: { version: 2 } } }]);
  templates.given(created, v2).when({ type: 'update', owner, at, version: content, basedOn: 1, publish: false }).thenThrows(t, 'IKW-RES-003');
  templates.given(created).when({ type: 'update', owner, at, name: 'Hi', basedOn: 1, publish: false }).thenNothing(t, 'the same name changes nothing');
  templates
    .given(created)
    .when({ type: 'update', owner, at, name: 'New', version: content, basedOn: 1, publish: true })
    .thenMatch(t, [
      { type: 'template.renamed', data: { name: 'New' } },
      { type: 'template.version_added', data: { version: { version: 2 } } },
      { type: 'template.version_published', data: { version: 2 } },
    ]);
  const published = templates
    .given(created, v2)
    .when({ type: 'publish', owner, at, version: 1 })
    .thenMatch(t, [{ type: 'template.version_published', data: { version: 1 } }]);
  templates.given(created, v2, published).when({ type: 'publish', owner, at, version: 1 }).thenNothing(t, 'publishing the published version');
  templates.given(created).when({ type: 'publish', owner, at, version: 3 }).thenThrows(t, { code: 'IKW-RES-001', param: 'version' });
  templates.given(created).when({ type: 'publish', owner: stranger, at, version: 1 }).thenThrows(t, { code: 'IKW-RES-001', param: 'templateId' });
  const deleted = templates
    .given(created)
    .when({ type: 'delete', owner, at })
    .thenMatch(t, [{ type: 'template.deleted' }]);
  templates.given(created, deleted).when({ type: 'delete', owner, at }).thenThrows(t, 'IKW-RES-001');
  templates.given(created, deleted).when({ type: 'publish', owner, at, version: 1 }).thenThrows(t, 'IKW-RES-001');
});

t.test('template checks: declared variables, kind fields, data against the schema', async (t) => {
  const code = (f: () => void) => {
    try {
      f();
      return null;
    } catch (err) {
      return err instanceof Refusal ? [err.code, err.field] : String(err);
    }
  };
  t.same(
    code(() => checkVersion('sms', { ...version, locales: { en: { text: '{{ other }}' } } })),
    ['IKW-TPL-002', 'locales.en.text'],
  );
  t.same(
    code(() => checkVersion('sms', { ...version, locales: { en: { text: '{% for x in name %}{{ x }}{% endfor %}' } } })),
    null,
    'loop variables are not globals',
  );
  t.same(
    code(() => checkVersion('email', version)),
    ['IKW-VAL-001', 'locales.en.subject'],
  );
  t.same(
    code(() => checkVersion('receipt', { ...version, locales: { en: { title: 'T', text: 'x', html: '<p>' } } })),
    ['IKW-VAL-002', 'locales.en.html'],
  );
  const typed = { variables: { type: 'object', required: ['n'], properties: { n: { type: 'integer', minimum: 1 }, who: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' } } } } } };
  t.same(
    code(() => checkData(typed, {})),
    ['IKW-TPL-003', 'data.n'],
  );
  t.same(
    code(() => checkData(typed, { n: 0 })),
    ['IKW-TPL-003', 'data.n'],
  );
  t.same(
    code(() => checkData(typed, { n: 1, who: {} })),
    ['IKW-TPL-003', 'data.who.email'],
  );
  t.same(
    code(() => checkData(typed, { n: 1, who: { email: 'nope' } })),
    ['IKW-TPL-003', 'data.who.email'],
  );
  t.equal(
    code(() => checkData(typed, { n: 2, who: { email: 'a@example.com' } })),
    null,
  );
});
