import type { LabelRecord } from '#shared/model/labels.ts';

/** Chatwoot's label JSON (`_label.json.jbuilder`). */
export const labelJson = (l: LabelRecord) => ({
  id: l.id,
  title: l.title,
  description: l.description,
  color: l.color,
  show_on_sidebar: l.show_on_sidebar,
});
