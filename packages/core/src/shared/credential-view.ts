import { z } from '@hono/zod-openapi';

/** A credential as the user view lists it: what a host shows in a "your passkeys" screen. */
export const webauthnCredentialViewSchema = z
  .object({
    webauthn_credential_id: z.string(),
    name: z.string().optional().openapi({ description: 'The label given at registration, when any.' }),
    domain: z.string().openapi({ description: 'The relying-party id the credential works on.' }),
    authenticator_type: z.enum(['platform', 'cross-platform']).nullable(),
    transports: z.array(z.string()),
    aaguid: z.string().openapi({ description: "The authenticator model's AAGUID." }),
    backed_up: z.boolean().openapi({ description: 'Whether the passkey is synced to other devices.' }),
    created_at: z.int(),
    last_used_at: z.int().nullable(),
  })
  .openapi('WebAuthnCredential');

export type WebAuthnCredentialView = z.infer<typeof webauthnCredentialViewSchema>;

/** The fields of a stored credential (webauthn/repo.ts) the view shows; shared/ names no capability. */
type ShownCredential = Omit<WebAuthnCredentialView, 'webauthn_credential_id' | 'name' | 'domain'> & {
  id: string;
  name: string | null;
  rp_id: string;
};

export const webauthnCredentialView = (c: ShownCredential): WebAuthnCredentialView => ({
  webauthn_credential_id: c.id,
  ...(c.name === null ? {} : { name: c.name }),
  domain: c.rp_id,
  authenticator_type: c.authenticator_type,
  transports: c.transports,
  aaguid: c.aaguid,
  backed_up: c.backed_up,
  created_at: c.created_at,
  last_used_at: c.last_used_at,
});
