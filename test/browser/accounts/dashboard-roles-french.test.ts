/**
 * Issue 65 §9: the role of each of the user's organizations (Settings, "Your organizations") in
 * the page's language, not the API's code (`owner`).
 */
import t from 'tap';
import { startDashboard } from '../../support/dashboard.js';

const { signedIn } = await startDashboard(t);

t.test('Settings names the user’s role in French', async (t) => {
  const { page, problems } = await signedIn(t, 'Boutique Rôles', '/settings/profile');
  const row = page.getByRole('region', { name: 'Your organizations' }).getByRole('row', { name: /Boutique Rôles/ });
  await row.waitFor();
  t.match(await row.textContent(), /Owner/, 'in English');
  await page.getByRole('banner').getByLabel('Language').selectOption('fr');
  const ligne = page.getByRole('region', { name: 'Vos organisations' }).getByRole('row', { name: /Boutique Rôles/ });
  await ligne.waitFor();
  t.match(await ligne.textContent(), /Propriétaire/, 'in French');
  t.notMatch(await ligne.textContent(), /owner/, 'not the API’s code');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});
