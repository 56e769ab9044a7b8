import type { z } from 'zod';
import { newSecret } from '../crypto/ids.js';
import { LatchkeyError } from '../errors.js';
import { validationError } from '../http/validation-hook.js';
import { APP_CACHE_SECONDS, type Kernel } from '../kernel.js';
import { withoutSealedSecrets } from '../oauth/schema.js';
import { refuseSealedInput, sealProviderSecrets } from '../oauth/service.js';
import { expiringReads } from '../shared/expiring-reads.js';
import { refuseRemovedSettings } from './removed-settings.js';
import type { ApiKeyKind, AppRecord } from './repo.js';
import {
  type AppKeys,
  type AppSettings,
  type AppSettingsInput,
  type AppView,
  appSettingsSchema,
  type CreateAppInput,
  createAppInputSchema,
} from './schema.js';
import { assertKnownKeys, assertNoPrototypeKeys, mergePatch } from './settings-patch.js';
import { parseSettingsForWrite } from './settings-write.js';

/** The App as the API shows it: never its key hashes. */
export const appView = (app: AppRecord): AppView => ({
  app_id: app.id,
  name: app.name,
  settings: withoutSealedSecrets(app.settings),
  created_at: app.created_at,
  updated_at: app.updated_at,
});

export type AppService = ReturnType<typeof appService>;

export function appService(k: Kernel) {
  const hashKey = (key: string) => k.hasher.hash('api_key', key);
  // Every request presents a key: remembering recent answers saves a database round trip each.
  // A key rotated in another process keeps working here for at most APP_CACHE_SECONDS. Keyed by
  // the key as presented (the regex bounds its length), so a remembered answer costs no HMAC.
  // Unknown keys are remembered too, so guessing costs no database work; a grace-period key only
  // until it expires.
  type KeyAnswer = { app: AppRecord; kind: ApiKeyKind } | null;
  const keyAnswers = expiringReads<string, KeyAnswer>({
    read: (key, now) => lookUpKey(key, now),
    now: k.now,
    seconds: APP_CACHE_SECONDS,
    lifetime: (found, until) => {
      const expires = found?.app.previous_secret_key_expires_at;
      return expires && expires > k.now() ? Math.min(expires, until) : until;
    },
  });

  async function lookUpKey(key: string, now: number): Promise<KeyAnswer> {
    const found = await k.storage.apps.findByKeyHash(hashKey(key), now);
    // A key's prefix must agree with what it was issued as.
    return found && (found.kind === 'secret') === key.startsWith('sk_') ? found : null;
  }

  async function get(appId: string): Promise<AppRecord> {
    const app = await k.storage.apps.get(appId);
    if (!app) throw new LatchkeyError('app_not_found');
    return app;
  }

  /** Seals the secrets written in plain text, keeping those left out from `previous`. */
  const sealSecrets = async (
    appId: string,
    settings: AppSettings,
    previous?: AppSettings,
  ): Promise<AppSettings> => {
    const providers = await sealProviderSecrets(
      k.vault,
      appId,
      settings.oauth.providers,
      previous?.oauth.providers,
    );
    return { ...settings, oauth: { ...settings.oauth, providers } };
  };

  async function storeSettings(appId: string, next: AppSettings, previous: AppSettings): Promise<AppRecord> {
    const settings = await sealSecrets(appId, next, previous);
    const app = await k.storage.apps.update(appId, { settings, updated_at: k.now() });
    // Other processes see the change once their App cache expires (APP_CACHE_SECONDS).
    k.forgetApp(appId);
    if (!app) throw new LatchkeyError('app_not_found');
    return app;
  }

  return {
    /** Creates an App and returns its keys: the only time they are readable. */
    async create(input: CreateAppInput): Promise<AppKeys & { app: AppRecord }> {
      // The settings first, by the rules for writing them, so a bad one is named before any work.
      refuseSealedInput(settingsOf(input));
      const parsed = parseSettingsForWrite(settingsOf(input), ['settings']);
      const { name } = parseInput(createAppInputSchema, input);
      const secret_key = newSecret('sk_', k.random);
      const public_token = newSecret('pk_', k.random);
      const now = k.now();
      const id = k.id('app');
      const settings = await sealSecrets(id, parsed);
      const app: AppRecord = {
        id,
        name,
        secret_key_hash: hashKey(secret_key),
        public_token_hash: hashKey(public_token),
        previous_secret_key_hash: null,
        previous_secret_key_expires_at: null,
        settings,
        created_at: now,
        updated_at: now,
      };
      await k.storage.apps.insert(app);
      return { app_id: app.id, secret_key, public_token, app };
    },

    get,

    list: () => k.storage.apps.list(),

    /** Replaces the App's settings with these (defaults fill what is left out). */
    async updateSettings(appId: string, settings: AppSettingsInput): Promise<AppRecord> {
      refuseSealedInput(settings);
      const parsed = parseSettingsForWrite(settings);
      return storeSettings(appId, parsed, (await get(appId)).settings);
    },

    /**
     * Applies a JSON merge patch to the App's settings: only the fields given change, `null`
     * resets a field to its default. Unknown or invalid fields are refused with the field's path.
     */
    async patchSettings(appId: string, patch: unknown): Promise<AppRecord> {
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
        throw new LatchkeyError('invalid_field', 'The settings patch must be a JSON object.');
      refuseRemovedSettings(patch as Record<string, unknown>);
      // A `__proto__` where the schema names its keys is an unknown setting; where keys are free
      // (route rules) it is refused here, before the merge would take it as the prototype.
      assertKnownKeys(appSettingsSchema, patch);
      assertNoPrototypeKeys(patch);
      refuseSealedInput(patch);
      const app = await get(appId);
      const merged = mergePatch(app.settings, patch);
      return storeSettings(appId, parseSettingsForWrite(merged), app.settings);
    },

    /**
     * Issues a new secret key. The old one stops working at once, or after `graceSeconds` so
     * that running deployments can switch over.
     */
    async rotateSecretKey(
      appId: string,
      options: { graceSeconds?: number } = {},
    ): Promise<Pick<AppKeys, 'app_id' | 'secret_key'>> {
      const app = await get(appId);
      const secret_key = newSecret('sk_', k.random);
      const now = k.now();
      const grace = Math.max(0, Math.floor(options.graceSeconds ?? 0));
      await k.storage.apps.update(appId, {
        secret_key_hash: hashKey(secret_key),
        previous_secret_key_hash: grace > 0 ? app.secret_key_hash : null,
        previous_secret_key_expires_at: grace > 0 ? now + grace : null,
        updated_at: now,
      });
      keyAnswers.clear();
      k.forgetApp(appId);
      return { app_id: app.id, secret_key };
    },

    /** The App and key kind an API key belongs to, or null. */
    authenticateKey(key: string): Promise<KeyAnswer> {
      if (!/^(sk|pk)_[A-Za-z0-9_-]{20,100}$/.test(key)) return Promise.resolve(null);
      return keyAnswers.get(key);
    },
  };
}

const settingsOf = (input: unknown): unknown =>
  typeof input === 'object' && input !== null && 'settings' in input ? (input.settings ?? {}) : {};

/** Direct callers get the same typed 400 (naming the field) as HTTP callers, not a ZodError. */
function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error, 'json', input);
  return parsed.data;
}
