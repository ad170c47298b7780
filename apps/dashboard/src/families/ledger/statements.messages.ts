import type { Messages } from '../../shell/i18n.js';

/** The words of the statements (Statements.tsx). */
export const statementMessages: Messages<
  | 'statements'
  | 'statements.help'
  | 'new'
  | 'currency'
  | 'period'
  | 'period.lastMonth'
  | 'period.days'
  | 'from'
  | 'to'
  | 'period.limit'
  | 'create'
  | 'none'
  | 'pages'
  | 'status'
  | 'status.pending'
  | 'status.ready'
  | 'opening'
  | 'closing'
  | 'change'
  | 'files'
  | 'csv'
  | 'pdf'
  | 'csvOf'
  | 'pdfOf'
  | 'pending.help'
> = {
  en: {
    statements: 'Statements',
    'statements.help':
      'A statement of one currency over a period of whole UTC days: the balances at its start and end, and what each kind of movement did between them, for your accountant. A period over 92 days is computed in the background.',
    new: 'New statement',
    currency: 'Currency',
    period: 'Period',
    'period.lastMonth': 'The last full month',
    'period.days': 'From a day to a day',
    from: 'From (UTC day)',
    to: 'To (UTC day, included)',
    'period.limit': 'At most a year, ending yesterday or before.',
    create: 'Create the statement',
    none: 'No statement in this environment yet.',
    pages: 'Pages of statements',
    status: 'Status',
    'status.pending': 'Being computed',
    'status.ready': 'Ready',
    opening: 'Opening balance',
    closing: 'Closing balance',
    change: 'Change',
    files: 'Files',
    csv: 'CSV',
    pdf: 'PDF',
    csvOf: 'Download the CSV of the statement {period}',
    pdfOf: 'Download the PDF of the statement {period}',
    'pending.help': 'Its files can be downloaded once it is ready.',
  },
  fr: {
    statements: 'Relevés',
    'statements.help':
      'Un relevé d’une devise sur une période de jours UTC entiers : les soldes au début et à la fin, et ce que chaque type de mouvement a fait entre les deux, pour votre comptable. Une période de plus de 92 jours est calculée en arrière-plan.',
    new: 'Nouveau relevé',
    currency: 'Devise',
    period: 'Période',
    'period.lastMonth': 'Le dernier mois complet',
    'period.days': 'D’un jour à un autre',
    from: 'Du (jour UTC)',
    to: 'Au (jour UTC, inclus)',
    'period.limit': 'Un an au plus, finissant hier ou avant.',
    create: 'Créer le relevé',
    none: 'Aucun relevé dans cet environnement pour le moment.',
    pages: 'Pages de relevés',
    status: 'Statut',
    'status.pending': 'En cours de calcul',
    'status.ready': 'Prêt',
    opening: 'Solde d’ouverture',
    closing: 'Solde de clôture',
    change: 'Variation',
    files: 'Fichiers',
    csv: 'CSV',
    pdf: 'PDF',
    csvOf: 'Télécharger le CSV du relevé {period}',
    pdfOf: 'Télécharger le PDF du relevé {period}',
    'pending.help': 'Ses fichiers se téléchargent une fois qu’il est prêt.',
  },
};
