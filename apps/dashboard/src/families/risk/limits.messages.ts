import type { Messages } from '../../shell/i18n.js';

/** The Limits page's words. */
export const limitMessages: Messages<
  | 'title'
  | 'intro'
  | 'none'
  | 'payouts'
  | 'payouts.open'
  | 'amounts'
  | 'amounts.none'
  | 'amounts.help'
  | 'currency'
  | 'maximum'
  | 'cap'
  | 'today'
  | 'left'
  | 'noLimit'
  | 'reserve'
  | 'reserve.set'
  | 'reserve.none'
  | 'held'
  | 'held.total'
  | 'held.none'
  | 'held.more'
  | 'payment'
  | 'amount'
  | 'releasedOn'
> = {
  en: {
    title: 'Limits and holds',
    intro: 'What Sika’s risk team set on your account in this environment (sandbox and live have their own). A payment or payout beyond them is refused, with the reason.',
    none: 'No limit or hold is set on your account in this environment: payments and payouts are limited only by your balance, and nothing is held from your payments.',
    payouts: 'Payouts',
    'payouts.open': 'Payouts are not frozen.',
    amounts: 'Amounts',
    'amounts.none': 'No per-transaction maximum and no daily payout cap.',
    'amounts.help':
      'Maximum: the most one payment or payout may be. Daily cap: the most a day’s payouts may add up to; a day runs from 00:00 to 24:00 UTC, and a payout counts from its creation unless it fails or is canceled (fees do not count).',
    currency: 'Currency',
    maximum: 'Maximum',
    cap: 'Daily cap',
    today: 'Used today',
    left: 'Left today',
    noLimit: 'No limit',
    reserve: 'Rolling reserve',
    'reserve.set': '{percent} of each payment’s net (after fees) is held in your reserved balance for {days} days, then released to your available balance.',
    'reserve.none': 'No rolling reserve: nothing is held from new payments.',
    held: 'Held now',
    'held.total': 'Total held in {currency}',
    'held.none': 'No reserve is held now.',
    'held.more': 'The {count} released soonest are listed; the totals count them all.',
    payment: 'Payment',
    amount: 'Amount',
    releasedOn: 'Released on',
  },
  fr: {
    title: 'Limites et retenues',
    intro: 'Ce que l’équipe risques de Sika a fixé sur votre compte dans cet environnement (le test et la production ont chacun les leurs). Un paiement ou un virement qui les dépasse est refusé, avec le motif.',
    none: 'Aucune limite ni retenue n’est fixée sur votre compte dans cet environnement : les paiements et les virements ne sont limités que par votre solde, et rien n’est retenu sur vos paiements.',
    payouts: 'Virements',
    'payouts.open': 'Les virements ne sont pas gelés.',
    amounts: 'Montants',
    'amounts.none': 'Aucun maximum par opération ni plafond journalier de virements.',
    'amounts.help':
      'Maximum : le montant le plus élevé d’un paiement ou d’un virement. Plafond/jour : ce que les virements d’une journée peuvent totaliser ; une journée va de 00:00 à 24:00 UTC, et un virement compte dès sa création sauf s’il échoue ou est annulé (les frais ne comptent pas).',
    currency: 'Devise',
    maximum: 'Maximum',
    cap: 'Plafond/jour',
    today: 'Utilisé',
    left: 'Restant',
    noLimit: 'Aucune limite',
    reserve: 'Réserve glissante',
    'reserve.set': '{percent} du net de chaque paiement (après frais) est retenu dans votre solde réservé pendant {days} jours, puis libéré dans votre solde disponible.',
    'reserve.none': 'Aucune réserve glissante : rien n’est retenu sur les nouveaux paiements.',
    held: 'Retenu maintenant',
    'held.total': 'Total retenu en {currency}',
    'held.none': 'Aucune réserve n’est retenue pour l’instant.',
    'held.more': 'Les {count} libérées le plus tôt sont listées ; les totaux les comptent toutes.',
    payment: 'Paiement',
    amount: 'Montant',
    releasedOn: 'Libéré le',
  },
};
