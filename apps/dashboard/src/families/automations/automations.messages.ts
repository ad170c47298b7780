import type { Messages } from '../../shell/i18n.js';

/** Parameters of the actions catalog that the form names in words; another one is shown by its name. */
export const PARAM_LABELS = ['templateId', 'to', 'locale', 'data', 'url', 'method', 'headers', 'body', 'customer', 'amount', 'currency', 'description', 'daysUntilDue', 'destination', 'payoutMethodId', 'metadata', 'tag', 'seconds'] as const;

/** The words of the automation pages (Automations.tsx, Automation.tsx, AutomationEditor.tsx, automations.shared.tsx). */
export const automationMessages: Messages<
  | 'title'
  | 'intro'
  | 'new'
  | 'create'
  | 'createdSecret'
  | 'open'
  | 'list'
  | 'none'
  | 'pages'
  | 'show'
  | 'all'
  | 'name'
  | 'descriptionOptional'
  | 'description'
  | 'trigger'
  | 'trigger.event'
  | 'trigger.schedule'
  | 'trigger.eventType'
  | 'trigger.emittedBy'
  | 'trigger.cron'
  | 'trigger.cronHelp'
  | 'trigger.timezone'
  | 'trigger.scheduleText'
  | 'status'
  | 'status.enabled'
  | 'status.disabled'
  | 'status.failures'
  | 'lastRun'
  | 'never'
  | 'created'
  | 'updated'
  | 'version'
  | 'steps'
  | 'steps.help'
  | 'steps.none'
  | 'step.legend'
  | 'step.id'
  | 'step.idHelp'
  | 'step.attempts'
  | 'step.attemptsDefault'
  | 'step.up'
  | 'step.upNamed'
  | 'step.down'
  | 'step.downNamed'
  | 'step.remove'
  | 'step.removeNamed'
  | 'step.action'
  | 'step.add'
  | 'action.send_email'
  | 'action.send_sms'
  | 'action.http_request'
  | 'action.create_invoice'
  | 'action.create_payout'
  | 'action.tag_customer'
  | 'action.wait'
  | 'action.send_invoice_reminders'
  | 'action.send_email.help'
  | 'action.send_sms.help'
  | 'action.http_request.help'
  | 'action.create_invoice.help'
  | 'action.create_payout.help'
  | 'action.tag_customer.help'
  | 'action.wait.help'
  | 'param.templateId'
  | 'param.to'
  | 'param.locale'
  | 'param.data'
  | 'param.url'
  | 'param.method'
  | 'param.headers'
  | 'param.body'
  | 'param.customer'
  | 'param.amount'
  | 'param.currency'
  | 'param.description'
  | 'param.daysUntilDue'
  | 'param.destination'
  | 'param.payoutMethodId'
  | 'param.metadata'
  | 'param.tag'
  | 'param.seconds'
  | 'param.default'
  | 'param.chooseTemplate'
  | 'param.noTemplate'
  | 'param.templateUnpublished'
  | 'optional'
  | 'caps.title'
  | 'caps.emailSmtp'
  | 'caps.emailOutbox'
  | 'caps.sms'
  | 'caps.httpAllowed'
  | 'caps.httpsOnly'
  | 'caps.private'
  | 'caps.limits'
  | 'enableNow'
  | 'check'
  | 'valid'
  | 'problems'
  | 'nextRuns'
  | 'back'
  | 'automation'
  | 'notFound'
  | 'secret'
  | 'enable'
  | 'disable'
  | 'edit'
  | 'editTitle'
  | 'save'
  | 'saved'
  | 'delete'
  | 'deleteConfirm'
  | 'test.title'
  | 'test.help'
  | 'test.eventType'
  | 'test.triggerType'
  | 'test.data'
  | 'test.dataHelp'
  | 'test.run'
  | 'test.result'
  | 'runs'
  | 'runs.none'
  | 'runs.pages'
  | 'runs.open'
  | 'runs.openNamed'
  | 'runs.title'
  | 'run.id'
  | 'run.trigger'
  | 'run.event'
  | 'run.started'
  | 'run.finished'
  | 'run.error'
  | 'run.log'
  | 'run.cancel'
  | 'run.running'
  | 'run.waiting'
  | 'run.succeeded'
  | 'run.failed'
  | 'run.skipped'
  | 'run.canceled'
  | 'kind.event'
  | 'kind.schedule'
  | 'kind.test'
  | 'log.title'
  | 'log.intro'
  | 'log.none'
  | 'log.pages'
  | 'log.when'
  | 'log.step'
  | 'log.action'
  | 'log.due'
  | 'log.notRun'
  | 'log.attemptsOf'
  | 'log.attempt'
  | 'log.duration'
  | 'log.durationMs'
  | 'log.input'
  | 'log.output'
  | 'log.succeeded'
  | 'log.failed'
  | 'log.waiting'
  | 'log.skipped'
  | 'versions'
  | 'versions.saved'
  | 'versions.current'
  | 'versions.restore'
  | 'versions.restoreNamed'
  | 'versions.restored'
  | 'close'
> = {
  en: {
    title: 'Automations',
    intro: 'When something happens, or on a schedule, send a message, call your server, invoice, pay out or tag a customer: steps run in order, each attempt logged.',
    new: 'New automation',
    create: 'Create the automation',
    createdSecret: '{name} is created. Its signing secret, shown only this once, signs its HTTP calls like a webhook:',
    open: 'Open {name}',
    list: 'Automations of this environment',
    none: 'No automation in this environment yet.',
    pages: 'Pages of automations',
    show: 'Show',
    all: 'All',
    name: 'Name',
    descriptionOptional: 'Description (optional)',
    description: 'Description',
    trigger: 'Trigger',
    'trigger.event': 'When an event happens',
    'trigger.schedule': 'On a schedule',
    'trigger.eventType': 'Event',
    'trigger.emittedBy': 'Emitted by: {by}',
    'trigger.cron': 'Cron expression',
    'trigger.cronHelp': 'Five fields (minute hour day month weekday), or six with seconds first: 0 9 * * 1 is every Monday at 9:00.',
    'trigger.timezone': 'Time zone (IANA, UTC when empty)',
    'trigger.scheduleText': 'Schedule {cron} ({timezone})',
    status: 'Status',
    'status.enabled': 'Enabled',
    'status.disabled': 'Disabled',
    'status.failures': 'Disabled after failing runs in a row',
    lastRun: 'Last run',
    never: 'Never',
    created: 'Created',
    updated: 'Updated',
    version: 'Version',
    steps: 'Steps',
    'steps.help': 'Every text is a Liquid template: {{ event.data.amount }}, {{ run.id }}, or the output of an earlier step, {{ steps.<id>.… }}.',
    'steps.none': 'No step yet: add the first one below.',
    'step.legend': 'Step {n}: {action}',
    'step.id': 'Step id',
    'step.idHelp': 'Lowercase letters, digits and _; the next steps read its output as steps.{id}.',
    'step.attempts': 'Attempts before the run fails',
    'step.attemptsDefault': 'Default ({n})',
    'step.up': 'Up',
    'step.upNamed': 'Move step {id} up',
    'step.down': 'Down',
    'step.downNamed': 'Move step {id} down',
    'step.remove': 'Remove',
    'step.removeNamed': 'Remove step {id}',
    'step.action': 'Action',
    'step.add': 'Add the step',
    'action.send_email': 'Send an e-mail',
    'action.send_sms': 'Send an SMS',
    'action.http_request': 'Call a URL',
    'action.create_invoice': 'Create an invoice',
    'action.create_payout': 'Create a payout',
    'action.tag_customer': 'Tag a customer',
    'action.wait': 'Wait',
    'action.send_invoice_reminders': 'Send invoice reminders',
    'action.send_email.help': 'Renders one of your e-mail templates and sends it. In the sandbox, only to your team’s verified addresses (anything else is kept in the outbox).',
    'action.send_sms.help': 'Renders one of your SMS templates and sends it to an E.164 number. In the sandbox, only to your team’s verified numbers.',
    'action.http_request.help': 'Calls a URL (HTTPS in live), signed like a webhook with the automation’s secret; the answer is the step’s output.',
    'action.create_invoice.help': 'Creates an open invoice for a customer (cus_… or an e-mail address). A test run only shows what it would create.',
    'action.create_payout.help': 'Pays out from your available balance, to a destination (JSON) or a saved one. A test run only shows what it would pay.',
    'action.tag_customer.help': 'Adds a tag to an existing customer (cus_… or e-mail address).',
    'action.wait.help': 'Pauses the run, up to 7 days, before the next step. A test run does not wait.',
    'param.templateId': 'Template',
    'param.to': 'To',
    'param.locale': 'Language (en, fr…)',
    'param.data': 'Template data',
    'param.url': 'URL',
    'param.method': 'Method',
    'param.headers': 'Headers',
    'param.body': 'Body',
    'param.customer': 'Customer',
    'param.amount': 'Amount (minor units, or a template)',
    'param.currency': 'Currency',
    'param.description': 'Description',
    'param.daysUntilDue': 'Days until due',
    'param.destination': 'Destination',
    'param.payoutMethodId': 'Saved destination id',
    'param.metadata': 'Metadata',
    'param.tag': 'Tag',
    'param.seconds': 'Seconds',
    'param.default': 'Default',
    'param.chooseTemplate': 'Choose a template',
    'param.noTemplate': 'No template of this kind yet (Templates)',
    'param.templateUnpublished': '{name} (not published)',
    optional: '(optional)',
    'caps.title': 'What this environment does with the steps',
    'caps.emailSmtp': 'E-mails are sent through the service’s mail server.',
    'caps.emailOutbox': 'E-mails are kept in the service’s outbox (no mail server configured).',
    'caps.sms': 'SMS are kept in the service’s outbox (no SMS provider configured).',
    'caps.httpAllowed': 'Calls may use http:// or https://.',
    'caps.httpsOnly': 'Calls must use https://.',
    'caps.private': 'Calls may reach the private address ranges this deployment allows (sandbox, for local testing).',
    'caps.limits': 'Up to {steps} steps; a wait up to {days} days; {runs} runs a minute; {failures} failed runs in a row disable the automation.',
    enableNow: 'Enable it now (otherwise it starts disabled: try it with a test run first)',
    check: 'Check',
    valid: 'No problem found.',
    problems: '{n} problems: each is said at its field.',
    nextRuns: 'Its next runs:',
    back: 'All automations',
    automation: 'Automation',
    notFound: 'No such automation in this environment.',
    secret: 'Signing secret',
    enable: 'Enable',
    disable: 'Disable',
    edit: 'Edit',
    editTitle: 'Edit the automation',
    save: 'Save as a new version',
    saved: 'Saved as version {version}.',
    delete: 'Delete',
    deleteConfirm: 'Delete {name}? It starts no more runs; runs under way go on to their end.',
    'test.title': 'Test run',
    'test.help': 'Runs the steps now with a sample event: messages and calls happen; invoices, payouts and waits are only rendered and marked skipped.',
    'test.eventType': 'Sample event type',
    'test.triggerType': 'The trigger’s ({type})',
    'test.data': 'Sample event data (JSON, optional)',
    'test.dataHelp': 'What {{ event.data }} holds, e.g. {"amount": 5000, "currency": "xof"}.',
    'test.run': 'Run a test',
    'test.result': 'Result of the test run',
    runs: 'Runs',
    'runs.none': 'No run yet.',
    'runs.pages': 'Pages of runs',
    'runs.open': 'Log',
    'runs.openNamed': 'Log of the run of {when}',
    'runs.title': 'Run of {when}',
    'run.id': 'Run',
    'run.trigger': 'Started by',
    'run.event': 'Event',
    'run.started': 'Started',
    'run.finished': 'Finished',
    'run.error': 'Error',
    'run.log': 'Steps and their log',
    'run.cancel': 'Cancel this run',
    'run.running': 'Running',
    'run.waiting': 'Waiting',
    'run.succeeded': 'Succeeded',
    'run.failed': 'Failed',
    'run.skipped': 'Skipped',
    'run.canceled': 'Canceled',
    'kind.event': 'Event',
    'kind.schedule': 'Schedule',
    'kind.test': 'Test',
    'log.title': 'Step log',
    'log.intro': 'Every attempt of every step of this environment’s runs, newest first.',
    'log.none': 'No step attempt to show.',
    'log.pages': 'Pages of the step log',
    'log.when': 'When',
    'log.step': 'Step',
    'log.action': 'Action',
    'log.due': 'Running now.',
    'log.notRun': 'Not run.',
    'log.attemptsOf': 'Attempts of {step}',
    'log.attempt': 'Attempt',
    'log.duration': 'Duration',
    'log.durationMs': '{ms} ms',
    'log.input': 'Input',
    'log.output': 'Output',
    'log.succeeded': 'Succeeded',
    'log.failed': 'Failed',
    'log.waiting': 'Waiting',
    'log.skipped': 'Skipped',
    versions: 'Versions',
    'versions.saved': 'Saved',
    'versions.current': 'Current',
    'versions.restore': 'Restore',
    'versions.restoreNamed': 'Restore version {version}',
    'versions.restored': 'Version {version} restored as version {current}.',
    close: 'Close',
  },
  fr: {
    title: 'Automatisations',
    intro: 'Quand quelque chose se produit, ou selon un calendrier : envoyer un message, appeler votre serveur, facturer, verser ou étiqueter un client. Les étapes s’exécutent dans l’ordre, chaque tentative est journalisée.',
    new: 'Nouvelle automatisation',
    create: 'Créer l’automatisation',
    createdSecret: '{name} est créée. Son secret de signature, affiché cette seule fois, signe ses appels HTTP comme un webhook :',
    open: 'Ouvrir {name}',
    list: 'Automatisations de cet environnement',
    none: 'Aucune automatisation dans cet environnement pour l’instant.',
    pages: 'Pages d’automatisations',
    show: 'Afficher',
    all: 'Toutes',
    name: 'Nom',
    descriptionOptional: 'Description (facultative)',
    description: 'Description',
    trigger: 'Déclencheur',
    'trigger.event': 'Quand un événement se produit',
    'trigger.schedule': 'Selon un calendrier',
    'trigger.eventType': 'Événement',
    'trigger.emittedBy': 'Émis par : {by}',
    'trigger.cron': 'Expression cron',
    'trigger.cronHelp': 'Cinq champs (minute heure jour mois jour-de-semaine), ou six avec les secondes en premier : 0 9 * * 1 est chaque lundi à 9 h.',
    'trigger.timezone': 'Fuseau horaire (IANA, UTC si vide)',
    'trigger.scheduleText': 'Calendrier {cron} ({timezone})',
    status: 'Statut',
    'status.enabled': 'Activée',
    'status.disabled': 'Désactivée',
    'status.failures': 'Désactivée après des exécutions échouées à la suite',
    lastRun: 'Dernière exécution',
    never: 'Jamais',
    created: 'Créée',
    updated: 'Modifiée',
    version: 'Version',
    steps: 'Étapes',
    'steps.help': 'Chaque texte est un modèle Liquid : {{ event.data.amount }}, {{ run.id }}, ou le résultat d’une étape précédente, {{ steps.<id>.… }}.',
    'steps.none': 'Aucune étape pour l’instant : ajoutez la première ci-dessous.',
    'step.legend': 'Étape {n} : {action}',
    'step.id': 'Identifiant de l’étape',
    'step.idHelp': 'Minuscules, chiffres et _ ; les étapes suivantes lisent son résultat en steps.{id}.',
    'step.attempts': 'Tentatives avant l’échec de l’exécution',
    'step.attemptsDefault': 'Par défaut ({n})',
    'step.up': 'Monter',
    'step.upNamed': 'Monter l’étape {id}',
    'step.down': 'Descendre',
    'step.downNamed': 'Descendre l’étape {id}',
    'step.remove': 'Retirer',
    'step.removeNamed': 'Retirer l’étape {id}',
    'step.action': 'Action',
    'step.add': 'Ajouter l’étape',
    'action.send_email': 'Envoyer un e-mail',
    'action.send_sms': 'Envoyer un SMS',
    'action.http_request': 'Appeler une URL',
    'action.create_invoice': 'Créer une facture',
    'action.create_payout': 'Créer un virement',
    'action.tag_customer': 'Étiqueter un client',
    'action.wait': 'Attendre',
    'action.send_invoice_reminders': 'Envoyer les rappels de factures',
    'action.send_email.help': 'Rend un de vos modèles d’e-mail et l’envoie. En sandbox, seulement aux adresses vérifiées de votre équipe (le reste est gardé dans la boîte d’envoi).',
    'action.send_sms.help': 'Rend un de vos modèles de SMS et l’envoie à un numéro E.164. En sandbox, seulement aux numéros vérifiés de votre équipe.',
    'action.http_request.help': 'Appelle une URL (HTTPS en live), signée comme un webhook avec le secret de l’automatisation ; la réponse est le résultat de l’étape.',
    'action.create_invoice.help': 'Crée une facture ouverte pour un client (cus_… ou une adresse e-mail). Une exécution de test montre seulement ce qu’elle créerait.',
    'action.create_payout.help': 'Verse depuis votre solde disponible, vers une destination (JSON) ou une destination enregistrée. Une exécution de test montre seulement ce qu’elle verserait.',
    'action.tag_customer.help': 'Ajoute une étiquette à un client existant (cus_… ou adresse e-mail).',
    'action.wait.help': 'Met l’exécution en pause, jusqu’à 7 jours, avant l’étape suivante. Une exécution de test n’attend pas.',
    'param.templateId': 'Modèle',
    'param.to': 'Destinataire',
    'param.locale': 'Langue (en, fr…)',
    'param.data': 'Données du modèle',
    'param.url': 'URL',
    'param.method': 'Méthode',
    'param.headers': 'En-têtes',
    'param.body': 'Corps',
    'param.customer': 'Client',
    'param.amount': 'Montant (unités mineures, ou un modèle)',
    'param.currency': 'Devise',
    'param.description': 'Description',
    'param.daysUntilDue': 'Jours avant l’échéance',
    'param.destination': 'Destination',
    'param.payoutMethodId': 'Identifiant de la destination enregistrée',
    'param.metadata': 'Métadonnées',
    'param.tag': 'Étiquette',
    'param.seconds': 'Secondes',
    'param.default': 'Par défaut',
    'param.chooseTemplate': 'Choisir un modèle',
    'param.noTemplate': 'Aucun modèle de ce type pour l’instant (Modèles)',
    'param.templateUnpublished': '{name} (non publié)',
    optional: '(facultatif)',
    'caps.title': 'Ce que cet environnement fait des étapes',
    'caps.emailSmtp': 'Les e-mails partent par le serveur de messagerie du service.',
    'caps.emailOutbox': 'Les e-mails sont gardés dans la boîte d’envoi du service (aucun serveur de messagerie configuré).',
    'caps.sms': 'Les SMS sont gardés dans la boîte d’envoi du service (aucun fournisseur de SMS configuré).',
    'caps.httpAllowed': 'Les appels peuvent utiliser http:// ou https://.',
    'caps.httpsOnly': 'Les appels doivent utiliser https://.',
    'caps.private': 'Les appels peuvent atteindre les plages d’adresses privées que ce déploiement autorise (sandbox, pour tester en local).',
    'caps.limits': 'Jusqu’à {steps} étapes ; une attente jusqu’à {days} jours ; {runs} exécutions par minute ; {failures} exécutions échouées à la suite désactivent l’automatisation.',
    enableNow: 'L’activer maintenant (sinon elle commence désactivée : essayez-la d’abord avec une exécution de test)',
    check: 'Vérifier',
    valid: 'Aucun problème trouvé.',
    problems: '{n} problèmes : chacun est indiqué à son champ.',
    nextRuns: 'Ses prochaines exécutions :',
    back: 'Toutes les automatisations',
    automation: 'Automatisation',
    notFound: 'Aucune automatisation de ce nom dans cet environnement.',
    secret: 'Secret de signature',
    enable: 'Activer',
    disable: 'Désactiver',
    edit: 'Modifier',
    editTitle: 'Modifier l’automatisation',
    save: 'Enregistrer une nouvelle version',
    saved: 'Enregistrée en version {version}.',
    delete: 'Supprimer',
    deleteConfirm: 'Supprimer {name} ? Elle ne lance plus d’exécution ; celles en cours vont à leur terme.',
    'test.title': 'Exécution de test',
    'test.help': 'Exécute les étapes maintenant avec un événement d’exemple : messages et appels ont lieu ; factures, virements et attentes sont seulement rendus et marqués ignorés.',
    'test.eventType': 'Type d’événement d’exemple',
    'test.triggerType': 'Celui du déclencheur ({type})',
    'test.data': 'Données de l’événement d’exemple (JSON, facultatif)',
    'test.dataHelp': 'Ce que contient {{ event.data }}, par exemple {"amount": 5000, "currency": "xof"}.',
    'test.run': 'Lancer un test',
    'test.result': 'Résultat de l’exécution de test',
    runs: 'Exécutions',
    'runs.none': 'Aucune exécution pour l’instant.',
    'runs.pages': 'Pages d’exécutions',
    'runs.open': 'Journal',
    'runs.openNamed': 'Journal de l’exécution du {when}',
    'runs.title': 'Exécution du {when}',
    'run.id': 'Exécution',
    'run.trigger': 'Lancée par',
    'run.event': 'Événement',
    'run.started': 'Début',
    'run.finished': 'Fin',
    'run.error': 'Erreur',
    'run.log': 'Étapes et leur journal',
    'run.cancel': 'Annuler cette exécution',
    'run.running': 'En cours',
    'run.waiting': 'En attente',
    'run.succeeded': 'Réussie',
    'run.failed': 'Échouée',
    'run.skipped': 'Ignorée',
    'run.canceled': 'Annulée',
    'kind.event': 'Événement',
    'kind.schedule': 'Calendrier',
    'kind.test': 'Test',
    'log.title': 'Journal des étapes',
    'log.intro': 'Chaque tentative de chaque étape des exécutions de cet environnement, les plus récentes d’abord.',
    'log.none': 'Aucune tentative d’étape à afficher.',
    'log.pages': 'Pages du journal des étapes',
    'log.when': 'Quand',
    'log.step': 'Étape',
    'log.action': 'Action',
    'log.due': 'En cours.',
    'log.notRun': 'Pas exécutée.',
    'log.attemptsOf': 'Tentatives de {step}',
    'log.attempt': 'Tentative',
    'log.duration': 'Durée',
    'log.durationMs': '{ms} ms',
    'log.input': 'Entrée',
    'log.output': 'Résultat',
    'log.succeeded': 'Réussie',
    'log.failed': 'Échouée',
    'log.waiting': 'En attente',
    'log.skipped': 'Ignorée',
    versions: 'Versions',
    'versions.saved': 'Enregistrée',
    'versions.current': 'Actuelle',
    'versions.restore': 'Rétablir',
    'versions.restoreNamed': 'Rétablir la version {version}',
    'versions.restored': 'Version {version} rétablie en version {current}.',
    close: 'Fermer',
  },
};
