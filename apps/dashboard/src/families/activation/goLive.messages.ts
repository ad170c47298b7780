import type { Messages } from '../../shell/i18n.js';

/** The Go live page's words; `field.<path>` names a field of the application by its path in the API (`business.address`). */
export const goLiveMessages: Messages<
  | 'title'
  | 'intro'
  | 'submitted'
  | 'asked'
  | 'asked.help'
  | 'openLive'
  | 'business'
  | 'type.individual'
  | 'type.company'
  | 'type.help'
  | 'registration.help'
  | 'address'
  | 'address.line1'
  | 'address.city'
  | 'address.line2'
  | 'address.postalCode'
  | 'representative'
  | 'document.current'
  | 'document.replace'
  | 'document.help'
  | 'owners'
  | 'owners.help'
  | 'owners.add'
  | 'owners.remove'
  | 'owners.of'
  | 'owner.name'
  | 'owner.dateOfBirth'
  | 'owner.percent'
  | 'settlement'
  | 'settlement.help'
  | 'settlement.accountName'
  | 'volume'
  | 'volume.amount'
  | 'volume.currency'
  | 'optional'
  | 'missing'
  | 'missing.some'
  | 'submit'
  | 'resubmit'
  | 'sending'
  | 'uploading'
  | 'field.business'
  | 'field.business.legal_name'
  | 'field.business.trading_name'
  | 'field.business.type'
  | 'field.business.registration_number'
  | 'field.business.country'
  | 'field.business.address'
  | 'field.business.product_description'
  | 'field.business.website'
  | 'field.representative'
  | 'field.representative.name'
  | 'field.representative.date_of_birth'
  | 'field.representative.identity_document'
  | 'field.owners'
  | 'field.settlement_destination'
  | 'field.expected_monthly_volume'
> = {
  en: {
    title: 'Go live',
    intro: 'Tell Sika about your business to take real money. Sika reviews your application, usually within two working days, and e-mails you its decision. Sandbox keeps working meanwhile.',
    submitted: 'Submitted on {date}.',
    asked: 'What Sika asks',
    'asked.help': 'Each field asked is marked in the form below with Sika’s message. Correct them, then submit again.',
    openLive: 'Open live',
    business: 'Your business',
    'type.individual': 'An individual (sole trader)',
    'type.company': 'A registered company',
    'type.help': 'A company also gives its registration number and its owners of 25 % or more.',
    'registration.help': 'RCCM, NINEA, CAC… Required of a company, and of a sole trader where the country registers them.',
    address: 'Address',
    'address.line1': 'Street and number',
    'address.city': 'City',
    'address.line2': 'Building, floor',
    'address.postalCode': 'Postal code',
    representative: 'Who represents it',
    'document.current': 'Your identity document is on file.',
    'document.replace': 'Choose another file to replace it.',
    'document.help': 'A passport, national identity card or residence permit, as a PDF or a photo. Only you and Sika see it.',
    owners: 'Owners of 25 % or more',
    'owners.help': 'Everyone who holds a quarter of the company or more (at most four).',
    'owners.add': 'Add an owner',
    'owners.remove': 'Remove',
    'owners.of': 'Owner {n}',
    'owner.name': 'Full name',
    'owner.dateOfBirth': 'Date of birth',
    'owner.percent': 'Share held (%)',
    settlement: 'Where your money is paid out',
    'settlement.help': 'A wallet or an account in your business’s country and currency ({currency}). Sika checks it with the operator or the bank.',
    'settlement.accountName': 'Account holder’s name',
    volume: 'Expected monthly volume',
    'volume.amount': 'Amount a month',
    'volume.currency': 'Currency',
    optional: 'optional',
    missing: 'Your business must give this.',
    'missing.some': 'Some fields your business must give are missing: they are marked below.',
    submit: 'Submit for review',
    resubmit: 'Submit again',
    sending: 'Sending…',
    uploading: 'Uploading the document…',
    'field.business': 'The business',
    'field.business.legal_name': 'Legal name',
    'field.business.trading_name': 'Trading name',
    'field.business.type': 'Type of business',
    'field.business.registration_number': 'Registration number',
    'field.business.country': 'Country',
    'field.business.address': 'Address',
    'field.business.product_description': 'What you sell',
    'field.business.website': 'Website',
    'field.representative': 'The representative',
    'field.representative.name': 'Representative’s full name',
    'field.representative.date_of_birth': 'Date of birth',
    'field.representative.identity_document': 'Identity document',
    'field.owners': 'Owners',
    'field.settlement_destination': 'Payout destination',
    'field.expected_monthly_volume': 'Expected monthly volume',
  },
  fr: {
    title: 'Passer en production',
    intro: 'Présentez votre entreprise à Sika pour encaisser de l’argent réel. Sika examine votre demande, d’ordinaire sous deux jours ouvrés, et vous envoie sa décision par e-mail. Le mode test reste disponible d’ici là.',
    submitted: 'Envoyée le {date}.',
    asked: 'Ce que Sika demande',
    'asked.help': 'Chaque champ demandé est signalé dans le formulaire ci-dessous avec le message de Sika. Corrigez-les, puis envoyez à nouveau.',
    openLive: 'Ouvrir la production',
    business: 'Votre entreprise',
    'type.individual': 'Une personne physique (entreprise individuelle)',
    'type.company': 'Une société immatriculée',
    'type.help': 'Une société donne aussi son numéro d’immatriculation et ses détenteurs de 25 % ou plus.',
    'registration.help': 'RCCM, NINEA, CAC… Exigé d’une société, et d’une entreprise individuelle là où le pays les immatricule.',
    address: 'Adresse',
    'address.line1': 'Rue et numéro',
    'address.city': 'Ville',
    'address.line2': 'Bâtiment, étage',
    'address.postalCode': 'Code postal',
    representative: 'Qui la représente',
    'document.current': 'Votre pièce d’identité est enregistrée.',
    'document.replace': 'Choisissez un autre fichier pour la remplacer.',
    'document.help': 'Un passeport, une carte d’identité ou un titre de séjour, en PDF ou en photo. Seuls vous et Sika la voyez.',
    owners: 'Détenteurs de 25 % ou plus',
    'owners.help': 'Toute personne qui détient un quart de la société ou plus (quatre au plus).',
    'owners.add': 'Ajouter un détenteur',
    'owners.remove': 'Retirer',
    'owners.of': 'Détenteur {n}',
    'owner.name': 'Nom complet',
    'owner.dateOfBirth': 'Date de naissance',
    'owner.percent': 'Part détenue (%)',
    settlement: 'Où votre argent est versé',
    'settlement.help': 'Un portefeuille ou un compte dans le pays et la devise de votre entreprise ({currency}). Sika le vérifie auprès de l’opérateur ou de la banque.',
    'settlement.accountName': 'Nom du titulaire du compte',
    volume: 'Volume mensuel prévu',
    'volume.amount': 'Montant par mois',
    'volume.currency': 'Devise',
    optional: 'facultatif',
    missing: 'Votre entreprise doit le donner.',
    'missing.some': 'Il manque des champs que votre entreprise doit donner : ils sont signalés ci-dessous.',
    submit: 'Envoyer pour examen',
    resubmit: 'Envoyer à nouveau',
    sending: 'Envoi…',
    uploading: 'Envoi de la pièce…',
    'field.business': 'L’entreprise',
    'field.business.legal_name': 'Raison sociale',
    'field.business.trading_name': 'Nom commercial',
    'field.business.type': 'Type d’entreprise',
    'field.business.registration_number': 'Numéro d’immatriculation',
    'field.business.country': 'Pays',
    'field.business.address': 'Adresse',
    'field.business.product_description': 'Ce que vous vendez',
    'field.business.website': 'Site web',
    'field.representative': 'Le représentant',
    'field.representative.name': 'Nom complet du représentant',
    'field.representative.date_of_birth': 'Date de naissance',
    'field.representative.identity_document': 'Pièce d’identité',
    'field.owners': 'Détenteurs',
    'field.settlement_destination': 'Destination des virements',
    'field.expected_monthly_volume': 'Volume mensuel prévu',
  },
};
