import * as v from 'valibot';

// Chatwoot's Company validations: a name (at most 100 characters), an optional business domain of the
// model's pattern (unique in the account), a description.

const DOMAIN = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)+$/;

const Name = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, "can't be blank"), v.maxLength(100));
const Domain = v.nullable(
  v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.maxLength(253),
    v.check((d) => d === '' || DOMAIN.test(d), 'must be a valid domain name'),
    v.transform((d) => (d === '' ? null : d.toLowerCase())),
  ),
);
const Description = v.nullable(v.pipe(v.string('must be a string'), v.maxLength(1000)));

export const NewCompanySchema = v.object({ name: Name, domain: v.optional(Domain), description: v.optional(Description) });
export const CompanyUpdateSchema = v.object({ name: v.optional(Name), domain: v.optional(Domain), description: v.optional(Description) });

export type NewCompany = v.InferOutput<typeof NewCompanySchema>;
export type CompanyUpdate = v.InferOutput<typeof CompanyUpdateSchema>;
