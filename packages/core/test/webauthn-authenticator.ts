import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software authenticator for tests: ES256 keys from node:crypto, `none` attestation, the
 * WebAuthn byte layouts written out here (encoding only: the code under test parses them with
 * @simplewebauthn/server). Every field a test may want wrong can be overridden.
 */

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash('sha256').update(data).digest());

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export const TEST_AAGUID = 'adce0002-35bc-c60a-648b-0b25f1f05503';

export interface SoftCredential {
  /** Raw credential id, base64url. */
  id: string;
  privateKey: KeyObject;
  cosePublicKey: Uint8Array;
  /** The user handle the authenticator stored at registration (base64url). */
  userHandle: string;
  /** The next signature counter it will report. */
  counter: number;
}

export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** Set the user-verified flag (true unless told otherwise). */
  uv?: boolean;
  type?: string;
}

function cosePublicKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]),
  );
}

const uint32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

const clientData = (type: string, challenge: string, origin: string) =>
  b64url(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

/** A fresh credential for `navigator.credentials.create()`-like options. */
export function newCredential(userHandle: string, counter = 0): SoftCredential {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    id: b64url(randomBytes(32)),
    privateKey,
    cosePublicKey: cosePublicKey(publicKey),
    userHandle,
    counter,
  };
}

interface CreationOptionsLike {
  challenge: string;
  rp: { id: string };
  user: { id: string };
}

/** What the browser would send to registrations/create for these creation options. */
export function attest(
  options: CreationOptionsLike,
  over: CeremonyOverrides & { credential?: SoftCredential; origin: string },
) {
  const credential = over.credential ?? newCredential(options.user.id);
  const rpId = over.rpId ?? options.rp.id;
  const flags = FLAG_UP | FLAG_AT | (over.uv === false ? 0 : FLAG_UV);
  const idBytes = Buffer.from(credential.id, 'base64url');
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(idBytes.length);
  const authData = Buffer.concat([
    sha256(rpId),
    Buffer.from([flags]),
    uint32(credential.counter),
    Buffer.from(TEST_AAGUID.replace(/-/g, ''), 'hex'),
    idLength,
    idBytes,
    credential.cosePublicKey,
  ]);
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', new Uint8Array(authData)],
    ]) as never,
  );
  return {
    credential,
    json: {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: clientData(
          over.type ?? 'webauthn.create',
          over.challenge ?? options.challenge,
          over.origin,
        ),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    },
  };
}

interface RequestOptionsLike {
  challenge: string;
  rpId: string;
}

/** What the browser would send to authentications/complete; advances the credential's counter. */
export function assert(
  options: RequestOptionsLike,
  credential: SoftCredential,
  over: CeremonyOverrides & { origin: string; counter?: number; userHandle?: string | null },
) {
  const counter = over.counter ?? credential.counter;
  const flags = FLAG_UP | (over.uv === false ? 0 : FLAG_UV);
  const authData = Buffer.concat([sha256(over.rpId ?? options.rpId), Buffer.from([flags]), uint32(counter)]);
  const clientDataJSON = clientData(
    over.type ?? 'webauthn.get',
    over.challenge ?? options.challenge,
    over.origin,
  );
  const signature = sign(
    'sha256',
    Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]),
    credential.privateKey,
  );
  if (counter > 0) credential.counter = counter + 1;
  const userHandle = over.userHandle === undefined ? credential.userHandle : over.userHandle;
  return {
    id: credential.id,
    rawId: credential.id,
    type: 'public-key' as const,
    response: {
      clientDataJSON,
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      ...(userHandle === null ? {} : { userHandle }),
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform' as const,
  };
}
