import type { Messages } from '../../shell/i18n.js';

/** The words of a campaign's edit form and ledger (FundingCampaignEdit.tsx). */
export const fundingCampaignEditMessages: Messages<'edit' | 'editHelp' | 'save' | 'saved' | 'ledger' | 'ledgerHelp' | 'account' | 'balance' | 'entriesNone' | 'when' | 'entry' | 'source' | 'amount'> = {
  en: {
    edit: 'Edit the campaign',
    editHelp: 'The target and the deadline can change only while the campaign is a draft.',
    save: 'Save changes',
    saved: 'Campaign saved.',
    ledger: 'Ledger',
    ledgerHelp: 'The campaign’s own account in Sika’s ledger: every entry that moved money in or out of it.',
    account: 'Account',
    balance: 'Balance',
    entriesNone: 'No entry yet.',
    when: 'When',
    entry: 'Entry',
    source: 'Source',
    amount: 'Amount',
  },
  fr: {
    edit: 'Modifier la cagnotte',
    editHelp: 'L’objectif et la date limite ne changent que tant que la cagnotte est un brouillon.',
    save: 'Enregistrer',
    saved: 'Cagnotte enregistrée.',
    ledger: 'Grand livre',
    ledgerHelp: 'Le compte de la cagnotte dans le grand livre de Sika : chaque écriture qui y a fait entrer ou sortir de l’argent.',
    account: 'Compte',
    balance: 'Solde',
    entriesNone: 'Pas encore d’écriture.',
    when: 'Quand',
    entry: 'Écriture',
    source: 'Origine',
    amount: 'Montant',
  },
};
