import { base58 } from '@scure/base';
import type { AppSettings } from '../apps/schema.js';
import { chainModules, ethereumAddressesEqual, toChecksumAddress } from '../chains/index.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionService } from '../sessions/service.js';
import type { Factor } from '../shared/factor.js';
import { completeSignIn } from '../sign-in/complete.js';
import type { UserRecord } from '../users/repo.js';
import type { WalletRecord } from '../wallets/repo.js';
import { walletView } from '../wallets/service.js';
import { signInMessage } from './message.js';
import type { SignInWalletType, WalletChallengeConsumeFailure, WalletChallengeRecord } from './repo.js';
import type {
  VerifyWalletRequest,
  VerifyWalletResponse,
  WalletChallengeRequest,
  WalletChallengeResponse,
} from './schema.js';
import { decodeSignature, verifyWalletSignature } from './signature.js';

/** Expired challenges are kept this long, so a late verify hears "expired" rather than "not found". */
const CHALLENGE_RETENTION_SECONDS = 86_400;

const failures: Record<WalletChallengeConsumeFailure, ErrorType> = {
  not_found: 'wallet_challenge_not_found',
  used: 'wallet_challenge_used',
  expired: 'wallet_challenge_expired',
};

/** The address in its stored form (EIP-55 for ethereum), or a 400 when it is not one. */
export function canonicalAddress(walletType: SignInWalletType, address: string): string {
  const trimmed = address.trim();
  if (!chainModules[walletType].isValidAddress(trimmed)) {
    throw new LatchkeyError('invalid_wallet_address', undefined, { field: 'public_address' });
  }
  return walletType === 'ethereum' ? toChecksumAddress(trimmed) : trimmed;
}

const sameAddress = (walletType: SignInWalletType, a: string, b: string) =>
  walletType === 'ethereum' ? ethereumAddressesEqual(a, b) : a === b;

/** Where the message says the sign-in happens: the App's setting, or the domain over https. */
const messageUri = (s: AppSettings['wallet_auth']) =>
  s.uri ?? `${LOOPBACK.test(s.domain) ? 'http' : 'https'}://${s.domain}`;

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/;

export type WalletAuthService = ReturnType<typeof walletAuthService>;

export function walletAuthService(k: Kernel, sessions: SessionService) {
  /**
   * The App's wallet with this address, created (read-only, verified, not a default) when new:
   * for the challenge's user, or for a new user. Two verifies racing for one new address end
   * with one wallet and one user: the loser's user is rolled back with its failed insert.
   */
  async function walletFor(
    appId: string,
    c: WalletChallengeRecord,
  ): Promise<{ wallet: WalletRecord; user_created: boolean }> {
    const claim = (wallet: WalletRecord) => {
      if (c.user_id !== null && wallet.user_id !== c.user_id)
        throw new LatchkeyError('wallet_belongs_to_another_user');
      return { wallet, user_created: false };
    };
    const existing = await k.storage.wallets.findByAddress(appId, c.wallet_type, c.public_address);
    if (existing) return claim(existing);

    const app = await k.app(appId);
    const now = k.now();
    const walletOf = (userId: string): WalletRecord => ({
      id: k.id('wallet'),
      app_id: appId,
      user_id: userId,
      wallet_type: c.wallet_type,
      network: app.settings.wallets.network,
      public_address: c.public_address,
      key_source: 'external',
      derivation_path: null,
      key_id: null,
      sealed_private_key: null,
      is_default: false,
      is_imported: false,
      is_read_only: true,
      verified: true,
      created_at: now,
      updated_at: now,
    });

    if (c.user_id !== null) {
      const wallet = walletOf(c.user_id);
      if ((await k.storage.wallets.insert(wallet)).inserted) return { wallet, user_created: false };
    } else {
      const user: UserRecord = {
        id: k.id('user'),
        app_id: appId,
        name: null,
        status: 'active',
        created_at: now,
        updated_at: now,
      };
      const wallet = walletOf(user.id);
      const created = await k.storage
        .transaction(async (tx) => {
          await tx.users.insert(user);
          if ((await tx.wallets.insert(wallet)).inserted) return true;
          throw new LatchkeyError('duplicate_wallet'); // a concurrent verify created it: undo our user
        })
        .catch((err: unknown) => {
          if (err instanceof LatchkeyError && err.errorType === 'duplicate_wallet') return false;
          throw err;
        });
      if (created) return { wallet, user_created: true };
    }
    const winner = await k.storage.wallets.findByAddress(appId, c.wallet_type, c.public_address);
    if (!winner) throw new LatchkeyError('internal_error', 'The wallet vanished while being created.');
    return claim(winner);
  }

  return {
    /** A single-use sign-in message for the address, to be signed by the wallet and verified. */
    async challenge(appId: string, input: WalletChallengeRequest): Promise<WalletChallengeResponse> {
      const address = canonicalAddress(input.wallet_type, input.public_address);
      const app = await k.app(appId);
      if (input.user_id !== undefined && !(await k.storage.users.get(appId, input.user_id)))
        throw new LatchkeyError('user_not_found');
      const s = app.settings.wallet_auth;
      const now = k.now();
      // 128 bits, base58: alphanumeric as EIP-4361 requires of a nonce.
      const nonce = base58.encode(k.random.bytes(16));
      const expiresAt = now + s.challenge_ttl_seconds;
      const message = signInMessage(input.wallet_type, {
        domain: s.domain,
        address,
        statement: s.statement,
        uri: messageUri(s),
        chainId: input.wallet_type === 'ethereum' ? s.ethereum_chain_id : s.solana_chain_id,
        nonce,
        issuedAt: now,
        expiresAt,
      });
      await k.storage.walletChallenges.deleteExpired(appId, now - CHALLENGE_RETENTION_SECONDS);
      await k.storage.walletChallenges.insert({
        id: k.id('challenge'),
        app_id: appId,
        wallet_type: input.wallet_type,
        public_address: address,
        nonce,
        message,
        user_id: input.user_id ?? null,
        expires_at: expiresAt,
        used_at: null,
        created_at: now,
      });
      return {
        challenge: message,
        nonce,
        wallet_type: input.wallet_type,
        public_address: address,
        expires_at: expiresAt,
      };
    },

    /**
     * Checks the wallet's signature over its challenge, then finds or creates the wallet and its
     * user and applies the session rules. The challenge is judged as it is stored and spent
     * (atomically, once) only when the signature holds: a verify with a wrong signature or
     * address leaves it to its owner. Wrong signatures are not counted against it: a signature
     * cannot be guessed, so a count would only let anyone void someone else's challenge.
     */
    async verify(appId: string, input: VerifyWalletRequest): Promise<VerifyWalletResponse> {
      const type = input.wallet_type;
      const address = canonicalAddress(type, input.public_address);
      const signature = decodeSignature(type, input.signature);
      if (!signature) {
        throw new LatchkeyError(
          'invalid_field',
          type === 'ethereum'
            ? 'An ethereum signature is 65 bytes (r, s, v) as base64 or 0x-hex.'
            : 'A solana signature is 64 bytes as base58.',
          { field: 'signature' },
        );
      }
      const found =
        input.nonce !== undefined
          ? await k.storage.walletChallenges.get(appId, input.nonce)
          : await k.storage.walletChallenges.latest(appId, type, address);
      if (!found) throw new LatchkeyError('wallet_challenge_not_found');
      // The same order of reasons as consume gives, before anything is spent.
      if (found.used_at !== null) throw new LatchkeyError('wallet_challenge_used');
      if (found.expires_at <= k.now()) throw new LatchkeyError('wallet_challenge_expired');
      if (found.wallet_type !== type || !sameAddress(type, found.public_address, address))
        throw new LatchkeyError('wallet_address_mismatch');
      if (!verifyWalletSignature(type, found.message, signature, found.public_address))
        throw new LatchkeyError('invalid_signature');
      // A valid proof: spend the challenge, once, whoever else races with the same signature.
      const result = await k.storage.walletChallenges.consume(appId, found.nonce, k.now());
      if (!result.ok) throw new LatchkeyError(failures[result.reason]);
      const challenge = result.challenge;

      const { wallet, user_created } = await walletFor(appId, challenge);
      const now = k.now();
      const factor: Factor = {
        type: 'signature_challenge',
        delivery_channel: 'crypto_wallet',
        method: {
          method_id: wallet.id,
          method_type: 'wallet',
          wallet_id: wallet.id,
          // The challenge's type: the wallet was found or made by it.
          wallet_type: challenge.wallet_type,
          public_address: wallet.public_address,
          last_verified_at: now,
        },
      };
      return {
        wallet_id: wallet.id,
        user_created,
        wallet: walletView(wallet),
        ...(await completeSignIn(sessions, appId, { userId: wallet.user_id, factor }, input)),
      };
    },
  };
}
