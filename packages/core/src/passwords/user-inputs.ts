import type { UserName } from '../users/repo.js';

/**
 * The words of an email address a password should not lean on: the address, its local part and
 * the local part's pieces (`ada.lovelace+x` → `ada`, `lovelace`, `x`), and the domain's name.
 */
export function emailInputs(email: string): string[] {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  const local = at < 0 ? address : address.slice(0, at);
  const domainName = at < 0 ? '' : (address.slice(at + 1).split('.')[0] ?? '');
  return [address, local, ...local.split(/[._+-]+/), domainName];
}

export const nameInputs = (name: UserName | null): string[] =>
  name ? [name.first_name, name.middle_name, name.last_name].filter((n): n is string => !!n) : [];

/** Distinct, non-trivial words: one- and two-letter pieces would only add noise. */
export const distinctInputs = (inputs: string[]): string[] => [
  ...new Set(inputs.map((i) => i.trim()).filter((i) => i.length >= 3)),
];
