import type { Locale } from './i18n.ts';

// The words of the help-center articles block and viewer (articles.ts), in the widget's locales.

export interface ArticleText {
  popular: string;
  search: string;
  viewAll: string;
  none: string;
  back: string;
}

export const ARTICLES: Record<Locale, ArticleText> = {
  en: { popular: 'Popular articles', search: 'Search articles', viewAll: 'View all articles', none: 'No articles found', back: 'Back' },
  pt_BR: {
    popular: 'Artigos populares',
    search: 'Pesquisar artigos',
    viewAll: 'Ver todos os artigos',
    none: 'Nenhum artigo encontrado',
    back: 'Voltar',
  },
  es: {
    popular: 'Artículos populares',
    search: 'Buscar artículos',
    viewAll: 'Ver todos los artículos',
    none: 'No se encontraron artículos',
    back: 'Volver',
  },
  fr: {
    popular: 'Articles populaires',
    search: 'Rechercher des articles',
    viewAll: 'Voir tous les articles',
    none: 'Aucun article trouvé',
    back: 'Retour',
  },
  de: {
    popular: 'Beliebte Artikel',
    search: 'Artikel durchsuchen',
    viewAll: 'Alle Artikel ansehen',
    none: 'Keine Artikel gefunden',
    back: 'Zurück',
  },
  it: {
    popular: 'Articoli popolari',
    search: 'Cerca articoli',
    viewAll: 'Vedi tutti gli articoli',
    none: 'Nessun articolo trovato',
    back: 'Indietro',
  },
  nl: {
    popular: 'Populaire artikelen',
    search: 'Artikelen zoeken',
    viewAll: 'Alle artikelen bekijken',
    none: 'Geen artikelen gevonden',
    back: 'Terug',
  },
};
