import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import type { KeyVault } from '../ports/key-vault.js';
import { type OAuthProviderSettings, SEALED_FIELDS, SECRET_FIELDS } from './schema.js';

type Providers = Record<string, OAuthProviderSettings>;
type SecretField = (typeof SECRET_FIELDS)[number]['plain'];

/** Sealed for one App, provider and field: a blob copied elsewhere does not open. */
const context = (appId: string, providerId: string, field: SecretField) =>
  `oauth-provider-secret:${appId}:${providerId}:${field}`;

/**
 * What the API shows of a secret: a client secret's last four characters (as the provider's own
 * console shows them), a key's fingerprint (a PEM's ends are the same for every key).
 */
const hintOf = (field: SecretField, plain: string) =>
  field === 'client_secret' ? plain.slice(-4) : toHex(sha256(utf8(plain))).slice(0, 8);

/**
 * The providers as they are stored: each secret written in plain text sealed (and replaced by
 * its sealed form and hint), each left out kept from the stored provider of the same id and type.
 */
export async function sealProviderSecrets(
  vault: KeyVault,
  appId: string,
  next: Providers,
  previous: Providers | undefined,
): Promise<Providers> {
  const stored: Providers = {};
  for (const [id, provider] of Object.entries(next)) {
    const out: Record<string, unknown> = { ...provider };
    const before = previous?.[id]?.type === provider.type ? (previous[id] as Record<string, unknown>) : {};
    for (const f of SECRET_FIELDS) {
      const plain = out[f.plain];
      delete out[f.plain];
      if (typeof plain === 'string') {
        out[f.sealed] = await vault.seal(utf8(plain), context(appId, id, f.plain));
        out[f.hint] = hintOf(f.plain, plain);
      } else if (out[f.sealed] === undefined && typeof before[f.sealed] === 'string') {
        out[f.sealed] = before[f.sealed];
        out[f.hint] = before[f.hint];
      }
    }
    stored[id] = out as OAuthProviderSettings;
  }
  return stored;
}

/** The plain secret of a stored provider, or undefined when it has none. */
export async function openProviderSecret(
  vault: KeyVault,
  appId: string,
  providerId: string,
  provider: OAuthProviderSettings,
  field: SecretField,
): Promise<string | undefined> {
  const sealed = (provider as Record<string, unknown>)[`${field}_sealed`];
  if (typeof sealed !== 'string') return undefined;
  return new TextDecoder().decode(await vault.open(sealed, context(appId, providerId, field)));
}

/**
 * Refuses settings input that writes a sealed field itself: only Latchkey seals, so a blob copied
 * from another App or provider never reaches storage as if sealed here.
 */
export function refuseSealedInput(input: unknown): void {
  if (typeof input !== 'object' || input === null) return;
  const providers = (input as { oauth?: { providers?: unknown } }).oauth?.providers;
  if (typeof providers !== 'object' || providers === null) return;
  for (const [id, provider] of Object.entries(providers)) {
    if (typeof provider !== 'object' || provider === null) continue;
    for (const field of SEALED_FIELDS)
      if (Object.hasOwn(provider, field))
        throw new LatchkeyError(
          'invalid_field',
          `Invalid field 'oauth.providers.${id}.${field}': it is written by Latchkey; send the secret in plain text instead.`,
          {
            field: `oauth.providers.${id}.${field}`,
          },
        );
  }
}
