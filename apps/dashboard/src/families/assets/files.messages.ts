import type { Messages } from '../../shell/i18n.js';

/** The words of the files page (Files.tsx). */
export const fileMessages: Messages<
  | 'title'
  | 'upload'
  | 'file'
  | 'purpose'
  | 'purpose.logo'
  | 'purpose.onboarding_document'
  | 'purpose.invoice_attachment'
  | 'send'
  | 'progress'
  | 'step.hashing'
  | 'step.declaring'
  | 'step.uploading'
  | 'step.checking'
  | 'uploaded'
  | 'list'
  | 'none'
  | 'name'
  | 'size'
  | 'status'
  | 'status.pending'
  | 'status.uploaded'
  | 'status.ready'
  | 'created'
  | 'actions'
  | 'download'
  | 'delete'
  | 'confirmDelete'
  | 'pages'
> = {
  en: {
    title: 'Files',
    upload: 'Upload a file',
    file: 'File',
    purpose: 'What it is',
    'purpose.logo': 'Logo',
    'purpose.onboarding_document': 'Onboarding document',
    'purpose.invoice_attachment': 'Invoice attachment',
    send: 'Upload',
    progress: 'Upload progress',
    'step.hashing': 'Reading the file…',
    'step.declaring': 'Declaring it…',
    'step.uploading': 'Uploading…',
    'step.checking': 'Checking what arrived…',
    uploaded: '{name} is uploaded and checked.',
    list: 'Your files',
    none: 'No file in this environment yet.',
    name: 'Name',
    size: 'Size',
    status: 'Status',
    'status.pending': 'Waiting for its bytes',
    'status.uploaded': 'Uploaded, not checked',
    'status.ready': 'Ready',
    created: 'Created',
    actions: 'Actions',
    download: 'Download',
    delete: 'Delete',
    confirmDelete: 'Delete {name}? Its links stop working.',
    pages: 'Pages of files',
  },
  fr: {
    title: 'Fichiers',
    upload: 'Envoyer un fichier',
    file: 'Fichier',
    purpose: 'Nature',
    'purpose.logo': 'Logo',
    'purpose.onboarding_document': "Document d'inscription",
    'purpose.invoice_attachment': 'Pièce jointe de facture',
    send: 'Envoyer',
    progress: "Progression de l'envoi",
    'step.hashing': 'Lecture du fichier…',
    'step.declaring': 'Déclaration…',
    'step.uploading': 'Envoi…',
    'step.checking': 'Vérification de ce qui est arrivé…',
    uploaded: '{name} est envoyé et vérifié.',
    list: 'Vos fichiers',
    none: 'Aucun fichier dans cet environnement pour le moment.',
    name: 'Nom',
    size: 'Taille',
    status: 'Statut',
    'status.pending': 'En attente de son contenu',
    'status.uploaded': 'Envoyé, non vérifié',
    'status.ready': 'Prêt',
    created: 'Créé le',
    actions: 'Actions',
    download: 'Télécharger',
    delete: 'Supprimer',
    confirmDelete: 'Supprimer {name} ? Ses liens ne marcheront plus.',
    pages: 'Pages de fichiers',
  },
};
