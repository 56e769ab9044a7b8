/**
 * @simplewebauthn/server, loaded on the first WebAuthn request and kept: most requests never
 * touch passkeys, so importing @latchkey/core should not pay for it (and its dependencies).
 */
type Library = typeof import('@simplewebauthn/server') &
  Pick<typeof import('@simplewebauthn/server/helpers'), 'decodeClientDataJSON'>;

let loading: Promise<Library> | undefined;

export function webauthnLibrary(): Promise<Library> {
  loading ??= Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]).then(
    ([server, helpers]) => ({ ...server, decodeClientDataJSON: helpers.decodeClientDataJSON }),
  );
  // A failed load is not remembered, so a later request may try again.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
