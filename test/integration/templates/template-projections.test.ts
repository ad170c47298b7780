/** read.templates with its versions: events in, rows out, on a fresh schema. */
import t from '#tap';
import { templateDecider, type TemplateCommand } from '#packages/families/templates/decider.js';
import { templatesProjection } from '#packages/families/templates/read/templates.js';
import { spec } from '../../support/decider-spec.js';
import { projectionSpec } from '../../support/projection-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };

t.test('read.templates: latest and published versions, renames, deletion; every version kept', async (t) => {
  const version = { version: 1, variables: { type: 'object', properties: {} }, locales: { en: { text: 'v1' } }, defaultLocale: 'en', sampleData: null, createdAt: at.toISOString() };
  const commands: TemplateCommand[] = [
    { type: 'create', at, publish: true, template: { id: 'tpl_1', merchantId: 'acct_1', environment: 'sandbox', kind: 'sms', name: 'One', purpose: null, version, createdAt: at.toISOString() } },
    { type: 'update', owner, at, name: 'Two', version: { variables: version.variables, locales: { en: { text: 'v2' } }, defaultLocale: 'en', sampleData: null }, basedOn: 1, publish: false },
    { type: 'delete', owner, at },
  ];
  const events = spec(templateDecider).history(...commands);
  const p = await projectionSpec(t, templatesProjection);
  t.same(
    events.map((e) => e.type),
    ['template.created', 'template.version_published', 'template.renamed', 'template.version_added', 'template.deleted'],
  );
  await p.given(events.slice(0, 4));
  await p.thenRows(t, 'read.templates', [{ id: 'tpl_1', name: 'Two', latest_version: 2, published_version: 1, deleted: false, kind: 'sms' }]);
  await p.thenRows(t, 'read.template_versions', [
    { template_id: 'tpl_1', version: 1 },
    { template_id: 'tpl_1', version: 2 },
  ]);
  await p.given(events.slice(4));
  await p.thenRows(t, 'read.templates', [{ id: 'tpl_1', deleted: true }]);
});
