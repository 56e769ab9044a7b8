import { channels } from '../contacts/channels.js';
import { type FindOrCreateStep, findOrCreateByContact } from '../contacts/find-or-create.js';
import { newSecret } from '../crypto/ids.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { renderHtmlTemplate, renderTemplate } from '../messages/template.js';
import { checkSendLimits, type PendingHit } from '../rate-limits/send-limits.js';
import type { SessionService } from '../sessions/service.js';
import { deviceRequirement } from '../shared/device-match.js';
import { emailFactorMethod, type Factor } from '../shared/factor.js';
import { chooseRedirect, withToken } from '../shared/redirect-url.js';
import { completeSignIn, contactOwner } from '../sign-in/complete.js';
import type { MagicLinkConsumeFailure, MagicLinkKind, MagicLinkRecord } from './repo.js';
import type {
  MagicLinkAuthenticateRequest,
  MagicLinkAuthenticateResponse,
  MagicLinkLoginOrCreateRequest,
} from './schema.js';

const DEFAULT_EXPIRATION_MINUTES = 60;

const failures: Record<MagicLinkConsumeFailure, ErrorType> = {
  not_found: 'magic_link_not_found',
  used: 'magic_link_used',
  expired: 'magic_link_expired',
  too_many_attempts: 'magic_link_too_many_attempts',
  device_mismatch: 'device_fingerprint_mismatch',
};

export type MagicLinkService = ReturnType<typeof magicLinkService>;

export function magicLinkService(k: Kernel, sessions: SessionService) {
  const hashToken = (token: string) => k.hasher.hash('magic_link', token);

  return {
    /**
     * Emails a sign-in link: a registration link to a new address (the user is created) or to a
     * user still pending verification, a login link otherwise. `limits.also`: a window of this
     * request counted with the send's own, in the same step (the route's).
     */
    async loginOrCreate(
      appId: string,
      input: MagicLinkLoginOrCreateRequest,
      limits: { also?: PendingHit | undefined } = {},
    ) {
      const app = await k.app(appId);
      const channel = channels.email;
      const address = await channel.normalize(input.email);
      // Both kinds' redirects are judged from the App alone, before anything is created or sent:
      // when both are fine, the kind comes from the find-or-create itself and the address is not
      // read first (one round trip fewer on every send).
      const urls = redirectsOf(app.settings.redirect_urls, input);
      // Drawn when first needed, after the new user's ids, as it always was.
      let token: string | undefined;
      const tokenOf = () => (token ??= newSecret('', k.random, 32));
      const minutesOf = (kind: MagicLinkKind) =>
        (kind === 'login' ? input.login_expiration_minutes : input.signup_expiration_minutes) ??
        DEFAULT_EXPIRATION_MINUTES;
      const linkOf = (contact: { id: string; user_id: string }, kind: MagicLinkKind): MagicLinkRecord => {
        const now = k.now();
        return {
          id: k.id('magic'),
          app_id: appId,
          user_id: contact.user_id,
          email_id: contact.id,
          token_hash: hashToken(tokenOf()),
          kind,
          expires_at: now + minutesOf(kind) * 60,
          used_at: null,
          attempts: 0,
          device_fingerprint: input.device_fingerprint ?? null,
          created_at: now,
        };
      };
      // Where the repo can, a new address's link (a signup link) is inserted by the same step
      // that creates its user and contact: one statement on Postgres instead of two.
      const oneStep = k.storage.emails.findOrCreateWithUserAndLink?.bind(k.storage.emails);
      let linkStored = false;
      const together: FindOrCreateStep | undefined =
        oneStep &&
        (async (user, contact) => {
          const found = await oneStep(user, contact, linkOf(contact, 'signup'));
          linkStored = found.user_created;
          return found;
        });
      let kind: MagicLinkKind;
      let contact: Awaited<ReturnType<typeof findOrCreateByContact>>['contact'];
      let user_created: boolean;
      if (typeof urls.login === 'string' && typeof urls.signup === 'string') {
        await checkSendLimits(k, app, address, 'email', { also: limits.also });
        const found = await findOrCreateByContact(k, appId, channel, address, {
          pending: input.verification_required ?? false,
          together,
        });
        ({ contact, user_created } = found);
        // A repo that did not say who owns the address: its user is read (one statement more).
        const status =
          user_created || found.user_status !== undefined
            ? found.user_status
            : ((await k.storage.users.get(appId, contact.user_id))?.status ?? null);
        // A user who never completed sign-up (still pending) gets a registration link again.
        kind = !user_created && status === 'active' ? 'login' : 'signup';
      } else {
        // One kind's redirect is refused: whether that is this call's error depends on the
        // address, read before the limits count and before anything is written.
        const existing = await k.storage.emails.findByAddress(appId, address);
        const existingUser = existing ? await k.storage.users.get(appId, existing.user_id) : null;
        kind = existingUser?.status === 'active' ? 'login' : 'signup';
        const refused = urls[kind];
        if (typeof refused !== 'string') throw refused;
        await checkSendLimits(k, app, address, 'email', { also: limits.also });
        ({ contact, user_created } = existing
          ? { contact: existing, user_created: false }
          : await findOrCreateByContact(k, appId, channel, address, {
              pending: input.verification_required ?? false,
              absent: true,
              together,
            }));
      }
      const url = urls[kind] as string;

      // Created by this call, the contact's user is new: a signup link, stored with it.
      if (!(user_created && linkStored)) await k.storage.magicLinks.insert(linkOf(contact, kind));
      const minutes = minutesOf(kind);
      const link = withToken(url, tokenOf());
      const values = { app_name: app.name, url: link, minutes: String(minutes) };
      const m = app.settings.messages;
      await k.sender.send({
        channel: 'email',
        kind: 'magic_link',
        to: address,
        app_id: appId,
        url: link,
        subject: renderTemplate(m.magic_link_email_subject, values),
        text: renderTemplate(m.magic_link_email_text, values),
        html: renderHtmlTemplate(m.magic_link_email_html, values),
      });
      return { user_id: contact.user_id, user_created, email_id: contact.id };
    },

    /** Uses a link's token once: verifies the email, activates the user, applies the session rules. */
    async authenticate(
      appId: string,
      input: MagicLinkAuthenticateRequest,
    ): Promise<MagicLinkAuthenticateResponse> {
      const app = await k.app(appId);
      const now = k.now();
      // The device is checked in the same atomic step: a wrong one counts, and spends nothing.
      const result = await k.storage.magicLinks.consume(
        appId,
        hashToken(input.token),
        now,
        app.settings.magic_links.max_attempts,
        deviceRequirement(app.settings.magic_links.device_fingerprint_match, input.device_fingerprint),
      );
      if (!result.ok) throw new LatchkeyError(failures[result.reason]);
      const { link } = result;
      // Reset links' tokens are hashed for their own purpose and never match here; kept exact.
      if (link.kind === 'password_reset') throw new LatchkeyError('magic_link_not_found');
      const contact = await k.storage.emails.markVerified(appId, link.email_id, now);
      if (!contact) throw new LatchkeyError('magic_link_not_found');
      const user = await contactOwner(k, appId, link.user_id, now, 'magic_link_not_found');
      const factor: Factor = {
        type: 'magic_link',
        delivery_channel: 'email',
        method: emailFactorMethod(contact, now),
      };
      return {
        email_id: contact.id,
        method_id: contact.id,
        link_type: link.kind,
        ...(await completeSignIn(sessions, appId, { userId: user.id, factor }, input)),
      };
    },
  };
}

/** The App's redirect settings (apps/schema.ts), as far as a link's URL needs them. */
interface RedirectSettings {
  login: readonly string[];
  signup: readonly string[];
  default_login?: string | undefined;
  default_signup?: string | undefined;
}

/** Each kind's redirect for this call, or the error choosing it raised (thrown only if it is the kind sent). */
function redirectsOf(
  redirects: RedirectSettings,
  input: MagicLinkLoginOrCreateRequest,
): Record<'login' | 'signup', string | LatchkeyError> {
  const judge = (choose: () => string) => {
    try {
      return choose();
    } catch (err) {
      if (err instanceof LatchkeyError) return err;
      throw err;
    }
  };
  return {
    login: judge(() =>
      chooseRedirect(
        input.login_redirect_url,
        redirects.default_login,
        redirects.login,
        'login_redirect_url',
      ),
    ),
    signup: judge(() =>
      chooseRedirect(
        input.signup_redirect_url,
        redirects.default_signup,
        redirects.signup,
        'signup_redirect_url',
      ),
    ),
  };
}
