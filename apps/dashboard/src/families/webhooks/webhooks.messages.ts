import type { Messages } from '../../shell/i18n.js';

/** The words of the webhook pages (Webhooks.tsx, WebhookEndpoint.tsx). */
export const webhookMessages: Messages<
  | 'new'
  | 'url'
  | 'urlHelp'
  | 'events'
  | 'eventsHelp'
  | 'create'
  | 'list'
  | 'none'
  | 'endpoint'
  | 'status'
  | 'state.enabled'
  | 'state.disabled'
  | 'state.failing'
  | 'secret'
  | 'secretCreated'
  | 'secretOnce'
  | 'secretRotated'
  | 'created'
  | 'actions'
  | 'enable'
  | 'disable'
  | 'rotate'
  | 'rotateNamed'
  | 'enableNamed'
  | 'disableNamed'
  | 'pages'
  | 'title'
  | 'notFound'
  | 'back'
  | 'previousSecret'
  | 'rotationRecommended'
  | 'deliveries'
  | 'noDeliveries'
  | 'filter'
  | 'filter.all'
  | 'delivery.pending'
  | 'delivery.retrying'
  | 'delivery.succeeded'
  | 'delivery.failed'
  | 'delivery.skipped'
  | 'eventType'
  | 'eventId'
  | 'attemptCount'
  | 'nextAttempt'
  | 'open'
  | 'openNamed'
  | 'deliveryPages'
  | 'delivery'
  | 'attempts'
  | 'noAttempts'
  | 'attempt'
  | 'started'
  | 'duration'
  | 'durationMs'
  | 'responseStatus'
  | 'error'
  | 'answer'
  | 'answerHelp'
  | 'noAnswer'
  | 'replay'
  | 'replayed'
  | 'replayFailed'
  | 'replayFailedDone'
  | 'sendTest'
  | 'sendTestType'
  | 'sendTestHelp'
  | 'sendTestAnyHelp'
  | 'sendTestButton'
  | 'sendTestDone'
  | 'testMark'
  | 'close'
  | 'delete'
  | 'deleteNamed'
  | 'deleteConfirm'
> = {
  en: {
    new: 'New webhook endpoint',
    url: 'URL',
    urlHelp: 'Where Sika POSTs the events. Live endpoints must use https.',
    events: 'Event types',
    eventsHelp: 'Separated by commas: * for every event, payout.* for a family, or types such as payment_intent.succeeded.',
    create: 'Create the endpoint',
    list: 'Your webhook endpoints',
    none: 'No webhook endpoint in this environment yet.',
    endpoint: 'Endpoint',
    status: 'Status',
    'state.enabled': 'Enabled',
    'state.disabled': 'Disabled',
    'state.failing': 'failing',
    secret: 'Signing secret',
    secretCreated: 'Secret created',
    secretOnce: 'Copy the signing secret now: it is shown only once. Endpoint:',
    secretRotated: 'The previous secret keeps signing for 24 hours.',
    created: 'Created',
    actions: 'Actions',
    enable: 'Enable',
    disable: 'Disable',
    rotate: 'Rotate the secret',
    rotateNamed: 'Rotate the secret of {url}',
    enableNamed: 'Enable {url}',
    disableNamed: 'Disable {url}',
    pages: 'Pages of webhook endpoints',
    title: 'Webhook endpoint',
    notFound: 'There is no such webhook endpoint in this environment.',
    back: 'All webhook endpoints',
    previousSecret: 'The previous secret signs too until {when}.',
    rotationRecommended: 'This secret is over a year old: rotate it.',
    deliveries: 'Deliveries',
    noDeliveries: 'No delivery to this endpoint yet.',
    filter: 'Show',
    'filter.all': 'All',
    'delivery.pending': 'Pending',
    'delivery.retrying': 'Retrying',
    'delivery.succeeded': 'Succeeded',
    'delivery.failed': 'Failed',
    'delivery.skipped': 'Skipped',
    eventType: 'Event',
    eventId: 'Event id',
    attemptCount: 'Attempts',
    nextAttempt: 'Next attempt',
    open: 'Attempts',
    openNamed: 'Attempts of {event} at {when}',
    deliveryPages: 'Pages of deliveries',
    delivery: 'Delivery of {event}',
    attempts: 'Attempts',
    noAttempts: 'Not sent yet.',
    attempt: 'Attempt',
    started: 'Started',
    duration: 'Duration',
    durationMs: '{ms} ms',
    responseStatus: 'Answer status',
    error: 'Error',
    answer: 'Answer',
    answerHelp: 'The first 4 KiB of the body the endpoint answered.',
    noAnswer: 'No answer',
    replay: 'Replay this event',
    replayed: 'Sent again as a new delivery.',
    replayFailed: 'Replay the failed deliveries',
    replayFailedDone: '{count} failed deliveries sent again.',
    sendTest: 'Send a test event',
    sendTestType: 'Test event type',
    sendTestHelp: 'An example event of this type, signed like every webhook and marked as a test ("test": true, ids with _test_), sent to this endpoint only.',
    sendTestAnyHelp: 'Any event type, since this endpoint takes every event; left empty: {type}. An example event, signed like every webhook and marked as a test ("test": true, ids with _test_), sent to this endpoint only.',
    sendTestButton: 'Send the test event',
    sendTestDone: 'Test event {type} sent: its delivery is listed below.',
    testMark: 'test',
    close: 'Close',
    delete: 'Delete',
    deleteNamed: 'Delete {url}',
    deleteConfirm: 'Delete the endpoint {url}? Nothing will be sent to it again, and its deliveries go with it. To pause it, disable it instead.',
  },
  fr: {
    new: 'Nouveau point de terminaison webhook',
    url: 'URL',
    urlHelp: 'Où Sika envoie les événements (POST). En production, https est obligatoire.',
    events: "Types d'événements",
    eventsHelp: 'Séparés par des virgules : * pour tous les événements, payout.* pour une famille, ou des types comme payment_intent.succeeded.',
    create: 'Créer le point de terminaison',
    list: 'Vos points de terminaison webhook',
    none: 'Aucun point de terminaison webhook dans cet environnement pour le moment.',
    endpoint: 'Point de terminaison',
    status: 'Statut',
    'state.enabled': 'Activé',
    'state.disabled': 'Désactivé',
    'state.failing': 'en échec',
    secret: 'Secret de signature',
    secretCreated: 'Secret créé le',
    secretOnce: "Copiez le secret de signature maintenant : il n'est affiché qu'une fois. Point de terminaison :",
    secretRotated: 'Le secret précédent signe encore pendant 24 heures.',
    created: 'Créé le',
    actions: 'Actions',
    enable: 'Activer',
    disable: 'Désactiver',
    rotate: 'Renouveler le secret',
    rotateNamed: 'Renouveler le secret de {url}',
    enableNamed: 'Activer {url}',
    disableNamed: 'Désactiver {url}',
    pages: 'Pages de points de terminaison webhook',
    title: 'Point de terminaison webhook',
    notFound: "Il n'y a pas de tel point de terminaison webhook dans cet environnement.",
    back: 'Tous les points de terminaison webhook',
    previousSecret: "Le secret précédent signe aussi jusqu'au {when}.",
    rotationRecommended: 'Ce secret a plus d’un an : renouvelez-le.',
    deliveries: 'Livraisons',
    noDeliveries: 'Aucune livraison vers ce point de terminaison pour le moment.',
    filter: 'Afficher',
    'filter.all': 'Toutes',
    'delivery.pending': 'En attente',
    'delivery.retrying': 'Nouvel essai prévu',
    'delivery.succeeded': 'Réussie',
    'delivery.failed': 'Échouée',
    'delivery.skipped': 'Ignorée',
    eventType: 'Événement',
    eventId: "Identifiant de l'événement",
    attemptCount: 'Essais',
    nextAttempt: 'Prochain essai',
    open: 'Essais',
    openNamed: 'Essais de {event} du {when}',
    deliveryPages: 'Pages de livraisons',
    delivery: 'Livraison de {event}',
    attempts: 'Essais',
    noAttempts: 'Pas encore envoyée.',
    attempt: 'Essai',
    started: 'Début',
    duration: 'Durée',
    durationMs: '{ms} ms',
    responseStatus: 'Statut de la réponse',
    error: 'Erreur',
    answer: 'Réponse',
    answerHelp: 'Les 4 premiers Kio du corps de la réponse du point de terminaison.',
    noAnswer: 'Aucune réponse',
    replay: 'Renvoyer cet événement',
    replayed: 'Renvoyé dans une nouvelle livraison.',
    replayFailed: 'Renvoyer les livraisons échouées',
    replayFailedDone: '{count} livraisons échouées renvoyées.',
    sendTest: 'Envoyer un événement de test',
    sendTestType: "Type de l'événement de test",
    sendTestHelp: 'Un exemple d’événement de ce type, signé comme tout webhook et marqué comme test ("test": true, identifiants avec _test_), envoyé à ce seul point de terminaison.',
    sendTestAnyHelp:
      'N’importe quel type d’événement, puisque ce point de terminaison les reçoit tous ; laissé vide : {type}. Un exemple d’événement, signé comme tout webhook et marqué comme test ("test": true, identifiants avec _test_), envoyé à ce seul point de terminaison.',
    sendTestButton: "Envoyer l'événement de test",
    sendTestDone: 'Événement de test {type} envoyé : sa livraison figure ci-dessous.',
    testMark: 'test',
    close: 'Fermer',
    delete: 'Supprimer',
    deleteNamed: 'Supprimer {url}',
    deleteConfirm: 'Supprimer le point de terminaison {url} ? Plus rien ne lui sera envoyé, et ses livraisons disparaissent avec lui. Pour le mettre en pause, désactivez-le plutôt.',
  },
};
