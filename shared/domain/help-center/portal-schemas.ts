import * as v from 'valibot';
import { Bool, HttpUrl, RequiredText, Text } from '../schemas.ts';
import { Locale, OptionalText, Slug } from './schemas.ts';

// A portal's bodies (POST and PATCH/PUT …/portals), as Chatwoot's portals controller permits them.

/** A host name, from a bare host or a URL (Chatwoot keeps a URL's host). */
const CustomDomain = v.optional(
  v.nullable(
    v.pipe(
      Text(253),
      v.transform((s) => {
        if (!s) return null;
        const host = /^https?:\/\//i.test(s) ? (URL.canParse(s) ? new URL(s).hostname : s) : s;
        return host.toLowerCase();
      }),
      v.check(
        (h) => h === null || /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/.test(h),
        'is not a host name',
      ),
    ),
  ),
);

const Color = v.optional(
  v.nullable(
    v.pipe(
      Text(7),
      v.check((s) => s === '' || /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(s), 'must be a hex colour like #1f93ff'),
      v.transform((s) => s || null),
    ),
  ),
);

const PortalConfigInput = v.optional(
  v.object({
    allowed_locales: v.optional(v.pipe(v.array(Locale, 'must be an array of locale codes'), v.maxLength(50))),
    default_locale: v.optional(Locale),
  }),
);

const portalFields = {
  color: Color,
  custom_domain: CustomDomain,
  header_text: OptionalText(2000),
  homepage_link: v.optional(
    v.nullable(
      v.union(
        [
          v.pipe(
            v.literal(''),
            v.transform(() => null),
          ),
          HttpUrl,
        ],
        'must be an http or https URL',
      ),
    ),
  ),
  page_title: OptionalText(255),
  archived: v.optional(Bool),
  config: PortalConfigInput,
  // The logo: an upload's `blob_id` (POST …/upload), at the top level as Chatwoot's dashboard sends it, or in the
  // portal. Blank or null leaves the logo as it is (Rails' `present?`); `DELETE …/logo` removes it.
  blob_id: v.optional(
    v.nullable(
      v.union(
        [
          v.pipe(
            v.literal(''),
            v.transform(() => null),
          ),
          v.pipe(v.string(), v.maxLength(4096)),
          v.pipe(
            v.number(),
            v.transform((n) => String(n)),
          ),
        ],
        'must be the blob_id of an upload',
      ),
    ),
  ),
};

export const NewPortalSchema = v.object({ name: RequiredText(255), slug: Slug, ...portalFields });
export const PortalUpdateSchema = v.object({ name: v.optional(RequiredText(255)), slug: v.optional(Slug), ...portalFields });

export type NewPortal = v.InferOutput<typeof NewPortalSchema>;
export type PortalUpdate = v.InferOutput<typeof PortalUpdateSchema>;
