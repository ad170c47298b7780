import type { Messages } from '../../shell/i18n.js';

export const TEMPLATE_KINDS = ['email', 'sms', 'receipt', 'invoice'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

/** The words of the template pages (Templates.tsx, Template.tsx, TemplatePreview.tsx). */
export const templateMessages: Messages<
  | 'title'
  | 'intro'
  | 'new'
  | 'name'
  | 'kind'
  | 'create'
  | 'created'
  | 'show'
  | 'all'
  | 'kind.email'
  | 'kind.sms'
  | 'kind.receipt'
  | 'kind.invoice'
  | 'list'
  | 'latest'
  | 'published'
  | 'none'
  | 'notPublished'
  | 'template'
  | 'back'
  | 'notFound'
  | 'purpose'
  | 'noPurpose'
  | 'purposeHelp'
  | 'editor'
  | 'editorHelp'
  | 'language'
  | 'field.subject'
  | 'field.text'
  | 'field.html'
  | 'field.title'
  | 'field.smsText'
  | 'variables'
  | 'variablesHelp'
  | 'sampleData'
  | 'sampleDataHelp'
  | 'notJson'
  | 'save'
  | 'saved'
  | 'renamed'
  | 'unchanged'
  | 'builtIn'
  | 'builtInHelp'
  | 'builtInUse'
  | 'builtInUsed'
  | 'preview'
  | 'previewHelp'
  | 'previewFrame'
  | 'previewImages'
  | 'previewSubject'
  | 'previewText'
  | 'previewLength'
  | 'previewPdf'
  | 'previewWaiting'
  | 'versions'
  | 'version'
  | 'versionCreated'
  | 'versionStatus'
  | 'versionPublished'
  | 'versionDraft'
  | 'actions'
  | 'publish'
  | 'publishNamed'
  | 'publishedNotice'
  | 'delete'
  | 'deleteConfirm'
  | 'deleteFallback'
  | 'deleteYes'
  | 'keep'
> = {
  en: {
    title: 'Templates',
    intro: 'E-mails, SMS, receipts and invoices in your brand, written in Liquid.',
    new: 'New template',
    name: 'Name',
    kind: 'Kind',
    create: 'Create the template',
    created: 'Template created',
    show: 'Show',
    all: 'All kinds',
    'kind.email': 'E-mail',
    'kind.sms': 'SMS',
    'kind.receipt': 'Receipt',
    'kind.invoice': 'Invoice',
    list: 'Templates of this environment',
    latest: 'Latest version',
    published: 'Published version',
    none: 'No template in this environment yet.',
    notPublished: 'none',
    template: 'Template',
    back: 'All templates',
    notFound: 'No such template in this environment.',
    purpose: 'Replaces',
    noPurpose: 'none (sent by your automations)',
    purposeHelp: 'Once a version is published, the service sends this template instead of its built-in one.',
    editor: 'Editor',
    editorHelp: 'Liquid: {{ variable }}, {% if %}, {% for %} and filters. Every variable a text uses must be declared in the variables.',
    language: 'Language',
    'field.subject': 'Subject',
    'field.text': 'Text body',
    'field.html': 'HTML body (optional)',
    'field.title': 'Title',
    'field.smsText': 'Text',
    variables: 'Variables (JSON Schema)',
    variablesHelp: 'An object schema: the variables the texts may use, and which are required.',
    sampleData: 'Sample data (JSON)',
    sampleDataHelp: 'What the preview renders with; kept with the version.',
    notJson: '{field}: not valid JSON ({reason})',
    save: 'Save as a new version',
    saved: 'Saved as version {version}',
    renamed: 'Renamed',
    unchanged: 'Nothing to save: the editor holds the latest version.',
    builtIn: 'Start from a built-in template',
    builtInHelp: 'Fills the editor with one of the service’s own templates; nothing is saved until you save.',
    builtInUse: 'Use it in the editor',
    builtInUsed: 'The built-in template is in the editor, not saved yet.',
    preview: 'Preview',
    previewHelp: 'What the editor holds, rendered with the sample data before it is saved.',
    previewFrame: 'The e-mail’s HTML body',
    previewImages: 'Shown under the dashboard’s security policy: scripts never run, and images from other sites are not loaded here.',
    previewSubject: 'Subject',
    previewText: 'Text body',
    previewLength: '{count} characters',
    previewPdf: 'Download the PDF',
    previewWaiting: 'Rendering…',
    versions: 'Versions',
    version: 'Version',
    versionCreated: 'Saved',
    versionStatus: 'Status',
    versionPublished: 'Published',
    versionDraft: 'Not published',
    actions: 'Actions',
    publish: 'Publish',
    publishNamed: 'Publish version {version}',
    publishedNotice: 'Version {version} published',
    delete: 'Delete the template',
    deleteConfirm: 'Delete {name}? It cannot be undone.',
    deleteFallback: 'The service goes back to its built-in template for these messages.',
    deleteYes: 'Delete',
    keep: 'Keep it',
  },
  fr: {
    title: 'Modèles',
    intro: 'E-mails, SMS, reçus et factures à votre image, écrits en Liquid.',
    new: 'Nouveau modèle',
    name: 'Nom',
    kind: 'Type',
    create: 'Créer le modèle',
    created: 'Modèle créé',
    show: 'Afficher',
    all: 'Tous les types',
    'kind.email': 'E-mail',
    'kind.sms': 'SMS',
    'kind.receipt': 'Reçu',
    'kind.invoice': 'Facture',
    list: 'Modèles de cet environnement',
    latest: 'Dernière version',
    published: 'Version publiée',
    none: 'Aucun modèle dans cet environnement pour l’instant.',
    notPublished: 'aucune',
    template: 'Modèle',
    back: 'Tous les modèles',
    notFound: 'Aucun modèle de ce nom dans cet environnement.',
    purpose: 'Remplace',
    noPurpose: 'rien (envoyé par vos automatisations)',
    purposeHelp: 'Dès qu’une version est publiée, le service envoie ce modèle au lieu du sien.',
    editor: 'Éditeur',
    editorHelp: 'Liquid : {{ variable }}, {% if %}, {% for %} et des filtres. Toute variable utilisée par un texte doit être déclarée dans les variables.',
    language: 'Langue',
    'field.subject': 'Objet',
    'field.text': 'Corps en texte',
    'field.html': 'Corps HTML (facultatif)',
    'field.title': 'Titre',
    'field.smsText': 'Texte',
    variables: 'Variables (schéma JSON)',
    variablesHelp: 'Un schéma d’objet : les variables que les textes peuvent utiliser, et celles qui sont requises.',
    sampleData: 'Données d’exemple (JSON)',
    sampleDataHelp: 'Ce avec quoi l’aperçu est rendu ; gardées avec la version.',
    notJson: '{field} : JSON non valide ({reason})',
    save: 'Enregistrer une nouvelle version',
    saved: 'Enregistré comme version {version}',
    renamed: 'Renommé',
    unchanged: 'Rien à enregistrer : l’éditeur contient la dernière version.',
    builtIn: 'Partir d’un modèle intégré',
    builtInHelp: 'Remplit l’éditeur avec un des modèles du service ; rien n’est enregistré avant que vous n’enregistriez.',
    builtInUse: 'L’utiliser dans l’éditeur',
    builtInUsed: 'Le modèle intégré est dans l’éditeur, pas encore enregistré.',
    preview: 'Aperçu',
    previewHelp: 'Le contenu de l’éditeur, rendu avec les données d’exemple avant d’être enregistré.',
    previewFrame: 'Le corps HTML de l’e-mail',
    previewImages: 'Affiché sous la politique de sécurité du tableau de bord : aucun script ne s’exécute, et les images d’autres sites ne sont pas chargées ici.',
    previewSubject: 'Objet',
    previewText: 'Corps en texte',
    previewLength: '{count} caractères',
    previewPdf: 'Télécharger le PDF',
    previewWaiting: 'Rendu en cours…',
    versions: 'Versions',
    version: 'Version',
    versionCreated: 'Enregistrée',
    versionStatus: 'État',
    versionPublished: 'Publiée',
    versionDraft: 'Non publiée',
    actions: 'Actions',
    publish: 'Publier',
    publishNamed: 'Publier la version {version}',
    publishedNotice: 'Version {version} publiée',
    delete: 'Supprimer le modèle',
    deleteConfirm: 'Supprimer {name} ? C’est définitif.',
    deleteFallback: 'Le service reprend son modèle intégré pour ces messages.',
    deleteYes: 'Supprimer',
    keep: 'Le garder',
  },
};
