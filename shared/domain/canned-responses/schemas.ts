import * as v from 'valibot';

const ShortCode = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1), v.maxLength(255));
const Content = v.pipe(v.string('must be a string'), v.minLength(1), v.maxLength(20000));

export const NewCannedResponseSchema = v.object({ short_code: ShortCode, content: Content });
export const CannedResponseUpdateSchema = v.object({ short_code: v.optional(ShortCode), content: v.optional(Content) });

export type NewCannedResponse = v.InferOutput<typeof NewCannedResponseSchema>;
export type CannedResponseUpdate = v.InferOutput<typeof CannedResponseUpdateSchema>;
