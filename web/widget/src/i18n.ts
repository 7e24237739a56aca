// The widget's words in the locales `chatwootSettings.locale` / `$chatwoot.setLocale` may name. Our own
// wording (Chatwoot's widget i18n keys were the checklist of what needs words). The loader imports only
// LOADER, the chat page CHAT, so each bundle carries only its own strings.

export type Locale = 'en' | 'pt_BR' | 'es' | 'fr' | 'de' | 'it' | 'nl';

const LOCALES: Locale[] = ['en', 'pt_BR', 'es', 'fr', 'de', 'it', 'nl'];

/** `pt-BR`, `pt_br`, `pt` → `pt_BR`; `de-AT` → `de`; anything else → `en`. */
export function localeOf(raw: string | null | undefined): Locale {
  const v = (raw ?? '').trim().replace('-', '_');
  const exact = LOCALES.find((l) => l.toLowerCase() === v.toLowerCase());
  if (exact) return exact;
  const lang = v.split('_')[0].toLowerCase();
  return lang === 'pt' ? 'pt_BR' : (LOCALES.find((l) => l === lang) ?? 'en');
}

export interface LoaderText {
  open: string;
  close: string;
  chatWithUs: string;
  /** `{n}` unread messages. */
  unread: string;
  /** The campaign card's name: `{name}` wrote. */
  from: string;
}

export const LOADER: Record<Locale, LoaderText> = {
  en: { open: 'Open chat', close: 'Close chat', chatWithUs: 'Chat with us', unread: '{n} unread messages', from: 'Message from {name}' },
  pt_BR: {
    open: 'Abrir chat',
    close: 'Fechar chat',
    chatWithUs: 'Converse conosco',
    unread: '{n} mensagens não lidas',
    from: 'Mensagem de {name}',
  },
  es: {
    open: 'Abrir chat',
    close: 'Cerrar chat',
    chatWithUs: 'Chatea con nosotros',
    unread: '{n} mensajes sin leer',
    from: 'Mensaje de {name}',
  },
  fr: {
    open: 'Ouvrir le chat',
    close: 'Fermer le chat',
    chatWithUs: 'Discutez avec nous',
    unread: '{n} messages non lus',
    from: 'Message de {name}',
  },
  de: {
    open: 'Chat öffnen',
    close: 'Chat schließen',
    chatWithUs: 'Schreiben Sie uns',
    unread: '{n} ungelesene Nachrichten',
    from: 'Nachricht von {name}',
  },
  it: {
    open: 'Apri la chat',
    close: 'Chiudi la chat',
    chatWithUs: 'Scrivici',
    unread: '{n} messaggi non letti',
    from: 'Messaggio da {name}',
  },
  nl: {
    open: 'Chat openen',
    close: 'Chat sluiten',
    chatWithUs: 'Chat met ons',
    unread: '{n} ongelezen berichten',
    from: 'Bericht van {name}',
  },
};

export interface ChatText {
  typeMessage: string;
  send: string;
  attach: string;
  close: string;
  messages: string;
  typing: string;
  online: string;
  away: string;
  fewMinutes: string;
  fewHours: string;
  aDay: string;
  beforeStart: string;
  message: string;
  start: string;
  submit: string;
  email: string;
  rate: string;
  /** `{n}` of 5. */
  rating: string;
  /** The CSAT survey's feedback field. */
  feedback: string;
  image: string;
  file: string;
  error: string;
}

export const CHAT: Record<Locale, ChatText> = {
  en: {
    typeMessage: 'Type your message',
    send: 'Send message',
    attach: 'Attach a file',
    close: 'Close chat',
    messages: 'Messages',
    typing: 'Agent is typing…',
    online: 'We are online',
    away: 'We are away at the moment',
    fewMinutes: 'Typically replies in a few minutes',
    fewHours: 'Typically replies in a few hours',
    aDay: 'Typically replies in a day',
    beforeStart: 'Before we start',
    message: 'Message',
    start: 'Start conversation',
    submit: 'Submit',
    email: 'Your email address',
    rate: 'Rate the conversation',
    rating: 'Rating {n} of 5',
    feedback: 'Tell us more...',
    image: 'Image attachment',
    file: 'File',
    error: 'The chat could not be loaded.',
  },
  pt_BR: {
    typeMessage: 'Digite sua mensagem',
    send: 'Enviar mensagem',
    attach: 'Anexar um arquivo',
    close: 'Fechar chat',
    messages: 'Mensagens',
    typing: 'O agente está digitando…',
    online: 'Estamos online',
    away: 'Estamos ausentes no momento',
    fewMinutes: 'Normalmente responde em alguns minutos',
    fewHours: 'Normalmente responde em algumas horas',
    aDay: 'Normalmente responde em um dia',
    beforeStart: 'Antes de começarmos',
    message: 'Mensagem',
    start: 'Iniciar conversa',
    submit: 'Enviar',
    email: 'Seu endereço de e-mail',
    rate: 'Avalie a conversa',
    rating: 'Nota {n} de 5',
    feedback: 'Conte-nos mais...',
    image: 'Imagem anexada',
    file: 'Arquivo',
    error: 'Não foi possível carregar o chat.',
  },
  es: {
    typeMessage: 'Escribe tu mensaje',
    send: 'Enviar mensaje',
    attach: 'Adjuntar un archivo',
    close: 'Cerrar chat',
    messages: 'Mensajes',
    typing: 'El agente está escribiendo…',
    online: 'Estamos en línea',
    away: 'No estamos disponibles en este momento',
    fewMinutes: 'Normalmente responde en unos minutos',
    fewHours: 'Normalmente responde en unas horas',
    aDay: 'Normalmente responde en un día',
    beforeStart: 'Antes de empezar',
    message: 'Mensaje',
    start: 'Iniciar conversación',
    submit: 'Enviar',
    email: 'Tu correo electrónico',
    rate: 'Valora la conversación',
    rating: 'Puntuación {n} de 5',
    feedback: 'Cuéntanos más...',
    image: 'Imagen adjunta',
    file: 'Archivo',
    error: 'No se pudo cargar el chat.',
  },
  fr: {
    typeMessage: 'Saisissez votre message',
    send: 'Envoyer le message',
    attach: 'Joindre un fichier',
    close: 'Fermer le chat',
    messages: 'Messages',
    typing: 'Un agent écrit…',
    online: 'Nous sommes en ligne',
    away: 'Nous sommes absents pour le moment',
    fewMinutes: 'Répond généralement en quelques minutes',
    fewHours: 'Répond généralement en quelques heures',
    aDay: 'Répond généralement en un jour',
    beforeStart: 'Avant de commencer',
    message: 'Message',
    start: 'Démarrer la conversation',
    submit: 'Envoyer',
    email: 'Votre adresse e-mail',
    rate: 'Évaluez la conversation',
    rating: 'Note {n} sur 5',
    feedback: 'Dites-nous en plus...',
    image: 'Image jointe',
    file: 'Fichier',
    error: "Le chat n'a pas pu être chargé.",
  },
  de: {
    typeMessage: 'Nachricht eingeben',
    send: 'Nachricht senden',
    attach: 'Datei anhängen',
    close: 'Chat schließen',
    messages: 'Nachrichten',
    typing: 'Ein Agent schreibt…',
    online: 'Wir sind online',
    away: 'Wir sind gerade nicht erreichbar',
    fewMinutes: 'Antwortet normalerweise in wenigen Minuten',
    fewHours: 'Antwortet normalerweise in wenigen Stunden',
    aDay: 'Antwortet normalerweise innerhalb eines Tages',
    beforeStart: 'Bevor wir beginnen',
    message: 'Nachricht',
    start: 'Unterhaltung beginnen',
    submit: 'Absenden',
    email: 'Ihre E-Mail-Adresse',
    rate: 'Bewerten Sie die Unterhaltung',
    rating: 'Bewertung {n} von 5',
    feedback: 'Erzählen Sie uns mehr...',
    image: 'Bildanhang',
    file: 'Datei',
    error: 'Der Chat konnte nicht geladen werden.',
  },
  it: {
    typeMessage: 'Scrivi il tuo messaggio',
    send: 'Invia messaggio',
    attach: 'Allega un file',
    close: 'Chiudi la chat',
    messages: 'Messaggi',
    typing: "L'agente sta scrivendo…",
    online: 'Siamo online',
    away: 'Al momento non siamo disponibili',
    fewMinutes: 'Di solito risponde in pochi minuti',
    fewHours: 'Di solito risponde in poche ore',
    aDay: 'Di solito risponde in un giorno',
    beforeStart: 'Prima di iniziare',
    message: 'Messaggio',
    start: 'Inizia la conversazione',
    submit: 'Invia',
    email: 'Il tuo indirizzo email',
    rate: 'Valuta la conversazione',
    rating: 'Voto {n} su 5',
    feedback: 'Dicci di più...',
    image: 'Immagine allegata',
    file: 'File',
    error: 'Impossibile caricare la chat.',
  },
  nl: {
    typeMessage: 'Typ je bericht',
    send: 'Bericht versturen',
    attach: 'Bestand bijvoegen',
    close: 'Chat sluiten',
    messages: 'Berichten',
    typing: 'Een medewerker typt…',
    online: 'We zijn online',
    away: 'We zijn momenteel afwezig',
    fewMinutes: 'Antwoordt meestal binnen enkele minuten',
    fewHours: 'Antwoordt meestal binnen enkele uren',
    aDay: 'Antwoordt meestal binnen een dag',
    beforeStart: 'Voordat we beginnen',
    message: 'Bericht',
    start: 'Gesprek starten',
    submit: 'Versturen',
    email: 'Je e-mailadres',
    rate: 'Beoordeel het gesprek',
    rating: 'Score {n} van 5',
    feedback: 'Vertel ons meer...',
    image: 'Afbeelding als bijlage',
    file: 'Bestand',
    error: 'De chat kon niet worden geladen.',
  },
};
