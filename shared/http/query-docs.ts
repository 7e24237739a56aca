import * as v from 'valibot';

// The query parameters routes read, for the OpenAPI document only (a route row's `query` in infra/routes.ts,
// never a handler's: no function carries them; the services parse `ctx.query` themselves). Every value arrives as
// a string; repeated keys are joined with commas.

const param = (description: string) => v.optional(v.pipe(v.string(), v.description(description)));

const page = param('Page number (1-based); anything but a positive integer is page 1.');
const labels = {
  labels: param('Label titles, comma-separated.'),
  'labels[]': param('Label titles (repeat the key for several).'),
};

export const PageQuery = v.object({ page });

export const ContactListQuery = v.object({
  page,
  sort: param('Sort field (name, email, phone_number, last_activity_at, created_at, company, city, country); prefix - for descending.'),
  include_contact_inboxes: param("`false` leaves out each contact's contact inboxes (default true)."),
  ...labels,
});

export const ContactSearchQuery = v.object({
  q: param('Text searched in name, email, phone number and identifier.'),
  ...ContactListQuery.entries,
});

export const ContactShowQuery = v.object({ include_contact_inboxes: ContactListQuery.entries.include_contact_inboxes });

export const ConversationListQuery = v.object({
  status: param('open, resolved, pending, snoozed or all.'),
  assignee_type: param('me, unassigned, assigned or all.'),
  inbox_id: param('Only this inbox.'),
  team_id: param('Only this team.'),
  q: param('Text searched in messages.'),
  page,
  sort_by: param('Sort order (e.g. latest, created_at_desc, priority_desc).'),
  ...labels,
});

export const MessageListQuery = v.object({
  before: param('Only messages with a smaller id (the 20 before it).'),
  after: param('Only messages with a larger id.'),
  filter_internal_messages: param('`true` leaves out private notes.'),
});

export const BeforeQuery = v.object({ before: MessageListQuery.entries.before });

export const NotificationListQuery = v.object({
  page,
  sort_order: param('asc or desc (default desc).'),
  includes: param('Statuses to include, comma-separated (read, snoozed).'),
  'includes[]': param('Statuses to include (repeat the key for several).'),
});

export const SearchQuery = v.object({ search: param('Text the short code or content starts with / contains.') });

export const AssignableAgentsQuery = v.object({
  inbox_ids: param('Inbox ids, comma-separated.'),
  'inbox_ids[]': param('Inbox ids (repeat the key for several).'),
});

export const WebsiteTokenQuery = v.object({ website_token: param("The web widget inbox's website token.") });

/** The chat page's address (`GET /widget`): read by the page's own script, as the loader and a pop-out write it. */
export const ChatPageQuery = v.object({
  ...WebsiteTokenQuery.entries,
  cw_conversation: param("The visitor's auth token (the site's `cw_conversation` cookie); none: a new visitor."),
  locale: param('Locale of the widget (`de`, `pt_BR`, …).'),
  dark_mode: param('`light`, `auto` or `dark`.'),
  agent_typing_ms: param('Milliseconds "Agent is typing…" stays without a typing-off (default 30000; for tests).'),
});

export const WidgetEventQuery = v.object({ ...WebsiteTokenQuery.entries, locale: param('Locale of the visitor.') });

export const WidgetMessagesQuery = v.object({ ...WebsiteTokenQuery.entries, before: MessageListQuery.entries.before });

export const LocaleQuery = v.object({ locale: param('Count only the articles of this locale.') });
export const CategoryListQuery = v.object({ locale: param('Only the categories of this locale.'), page });
export const ArticleListQuery = v.object({
  locale: param('Only the articles of this locale.'),
  category_slug: param('Only the articles of the category with this slug.'),
  status: param('draft, published or archived.'),
  author_id: param("Only this agent's articles."),
  query: param('Words the title, description or content must contain (each as a word start).'),
  page,
});
export const ArticleSearchQuery = v.object({ q: param('Words to find (each as a word start).'), page });
export const HelpCenterSearchQuery = v.object({ query: param('Words to find in the published articles.') });
const companySort = param('Sort field (name, domain, created_at, contacts_count); prefix - for descending. Default name.');
export const CompanyListQuery = v.object({ page, sort: companySort });
export const CompanySearchQuery = v.object({ q: param('Text found anywhere in the name or domain (required).'), page, sort: companySort });

export const HelpCenterArticlesQuery = v.object({
  ...HelpCenterSearchQuery.entries,
  sort: param('`views`: most read first; otherwise by position.'),
  page: param('Page number, a whole number from 1 (default 1).'),
  per_page: param('Articles a page, 1 to 50 (default 25).'),
  status: param("Ignored: only published articles are listed (Chatwoot's widget sends `1`)."),
});
