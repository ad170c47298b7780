import type { Messages } from '../../../src/shell/i18n.js';
import { STATUS_WORDS } from './statuses.js';

/** The words of the console's Merchants page (Merchants.tsx). */
export const merchantsMessages = {
  en: {
    ...STATUS_WORDS.en,
    'merchants.search': 'Search merchants',
    'merchants.searchBox': 'Name, e-mail or id',
    'merchants.applicationStatus': 'Application',
    'merchants.anyStatus': 'Any status',
    'merchants.find': 'Search',
    'merchants.clear': 'Clear',
    'merchants.name': 'Name',
    'merchants.email': 'E-mail',
    'merchants.live': 'Live',
    'merchants.created': 'Created',
    'merchants.id': 'Id',
    'merchants.none': 'No merchant yet.',
    'merchants.noMatch': 'No merchant matches this search.',
    'merchants.pages': 'Pages of merchants',
  },
  fr: {
    ...STATUS_WORDS.fr,
    'merchants.search': 'Rechercher des marchands',
    'merchants.searchBox': 'Nom, e-mail ou identifiant',
    'merchants.applicationStatus': 'Demande',
    'merchants.anyStatus': 'Tous les statuts',
    'merchants.find': 'Rechercher',
    'merchants.clear': 'Effacer',
    'merchants.name': 'Nom',
    'merchants.email': 'E-mail',
    'merchants.live': 'Production',
    'merchants.created': 'Créé le',
    'merchants.id': 'Identifiant',
    'merchants.none': 'Aucun marchand pour l’instant.',
    'merchants.noMatch': 'Aucun marchand ne correspond à cette recherche.',
    'merchants.pages': 'Pages de marchands',
  },
} satisfies Messages<string>;
