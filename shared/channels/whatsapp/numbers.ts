// WhatsApp's Brazil and Argentina numbers (Chatwoot's PhoneNumberNormalizationService): the `wa_id` Meta sends may
// lack Brazil's mobile 9 (12 digits after 55) or carry Argentina's 9 (549…); a contact stored under the other form
// is still the same contact. The other form is only used when a contact inbox already has it.

/** The other form of a wa_id (digits, no `+`), or undefined when the number has none. */
export function alternateWaId(waId: string): string | undefined {
  if (/^55\d{10}$/.test(waId)) return `${waId.slice(0, 4)}9${waId.slice(4)}`;
  if (/^549\d{10}$/.test(waId)) return `54${waId.slice(3)}`;
  return undefined;
}
