import type { Messages } from '../../../src/shell/i18n.js';
import { RAIL_WORDS } from '../rails/railWords.js';

/** The words of the Reconciliation section's two pages (the history and one run). */
export const RECONCILIATION_WORDS = {
  en: {
    ...RAIL_WORDS.en,
    'recon.title': 'Reconciliation',
    'recon.intro': 'A run compares the rail’s wallets with what the ledger expects them to hold, and every attempt it carried with its record, using the rail’s credentials the service has. It changes nothing.',
    'recon.run': 'Run a reconciliation',
    'recon.environment': 'Environment',
    'recon.rail': 'Rail',
    'recon.submit': 'Run',
    'recon.running': 'Running…',
    'recon.noRail': 'No rail is configured for {environment}: there is nothing to reconcile there.',
    'recon.done': 'Run {id}: {checked} attempts checked, {differences} differences.',
    'recon.open': 'Open the run',
    'recon.history': 'History',
    'recon.empty': 'No reconciliation has run yet.',
    'recon.ranAt': 'Ran',
    'recon.actor': 'By',
    'recon.actor.cli': 'Command line',
    'recon.actor.operator': 'Operator {id}',
    'recon.actor.you': 'You',
    'recon.checked': 'Attempts checked',
    'recon.checkedShort': 'Checked',
    'recon.differences': 'Differences',
    'recon.differenceCounts': 'Wallets: {wallets} · Attempts: {attempts}',
    'recon.pages': 'Pages of the history',
  },
  fr: {
    ...RAIL_WORDS.fr,
    'recon.title': 'Rapprochement',
    'recon.intro':
      'Un rapprochement compare les portefeuilles du rail à ce que le grand livre attend qu’ils contiennent, et chaque tentative qu’il a portée à son relevé, avec les identifiants du rail que le service détient. Il ne change rien.',
    'recon.run': 'Lancer un rapprochement',
    'recon.environment': 'Environnement',
    'recon.rail': 'Rail',
    'recon.submit': 'Lancer',
    'recon.running': 'En cours…',
    'recon.noRail': 'Aucun rail n’est configuré pour {environment} : il n’y a rien à rapprocher.',
    'recon.done': 'Rapprochement {id} : {checked} tentatives vérifiées, {differences} écarts.',
    'recon.open': 'Ouvrir le rapprochement',
    'recon.history': 'Historique',
    'recon.empty': 'Aucun rapprochement n’a encore été lancé.',
    'recon.ranAt': 'Lancé le',
    'recon.actor': 'Par',
    'recon.actor.cli': 'Ligne de commande',
    'recon.actor.operator': 'Opérateur {id}',
    'recon.actor.you': 'Vous',
    'recon.checked': 'Tentatives vérifiées',
    'recon.checkedShort': 'Vérifiées',
    'recon.differences': 'Écarts',
    'recon.differenceCounts': 'Portefeuilles : {wallets} · Tentatives : {attempts}',
    'recon.pages': 'Pages de l’historique',
  },
} satisfies Messages<string>;

/** Who ran a run (`cli`, or `operator:<id>`), as the operator `me` reads it. */
export const actorText = (t: (key: 'recon.actor.cli' | 'recon.actor.operator' | 'recon.actor.you', values?: Record<string, string>) => string, actor: string, me: string): string =>
  actor === 'cli' ? t('recon.actor.cli') : actor === `operator:${me}` ? t('recon.actor.you') : actor.startsWith('operator:') ? t('recon.actor.operator', { id: actor.slice('operator:'.length) }) : actor;
