import { parsePhoneNumberFromString } from 'libphonenumber-js';

// A phone number as a contact's name (docs/channels.md#incoming): Chatwoot names an SMS or WhatsApp sender without a
// profile name by its number in international form, and renames a contact named only by its number once the
// provider gives a profile name.

/** The number in international form (`+1 415 555 2671`) when it is a valid number, else as given. */
export function numberName(number: string): string {
  const parsed = parsePhoneNumberFromString(number);
  return parsed?.isValid() ? parsed.formatInternational() : number;
}

/**
 * Whether a name is only the number, however punctuated: as given (`+14155552671`), ours (`+1 415 555 2671`) or
 * Chatwoot's (`+1 415-555-2671`).
 */
export function isNumberName(name: string, number: string): boolean {
  return /^\+?[\d\s().-]+$/.test(name) && name.replace(/[^\d]/g, '') === number.replace(/[^\d]/g, '');
}
