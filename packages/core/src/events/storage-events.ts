import type { OAuthLinkRecord } from '../oauth/repo.js';
import type { Storage } from '../ports/storage.js';
import type { SessionRecord } from '../sessions/repo.js';
import type { EventType } from '../shared/event-types.js';
import type { ContactRecord, FoundOrCreated, UserRecord } from '../users/repo.js';
import type { WalletSignatureRecord } from '../wallet-policies/repo.js';
import type { WalletTransactionPatch, WalletTransactionRecord } from '../wallet-transactions/repo.js';
import type { WalletRecord } from '../wallets/repo.js';

/** An event a storage write implies, before it gets its id and time. */
export interface ImpliedEvent {
  app_id: string;
  type: EventType;
  data: Record<string, unknown>;
}

type Repos = Omit<Storage, 'transaction' | 'close' | 'events' | 'webhooks'>;
type Method = (...args: never[]) => Promise<unknown>;

interface WriteRule<M extends Method> {
  /** Whether this call can imply an event at all; when not, it runs without a transaction of its own. */
  when?: (...args: Parameters<M>) => boolean;
  events: (result: Awaited<ReturnType<M>>, ...args: Parameters<M>) => ImpliedEvent[];
  /**
   * When the events follow from the arguments alone (the result only says which of them hold):
   * `expected` builds them, and a repo that has `method` makes the write and writes those the
   * write implies in one step (one SQL statement, not a transaction of several). `expected` may
   * offer alternatives (one per outcome); the repo's method documents how it picks among them.
   * A repo without `method` gets the transaction.
   *
   * `dataFromRow`: the events' data comes from the row the write changes, which the arguments do
   * not hold (a contact marked verified). `expected`'s events then carry an empty `data`: the repo
   * builds each one's data in its statement from the row it wrote, as `events` builds it from the
   * result, and writes them only when the write matched a row. What was written is `events`'
   * events under the ids and times `expected` gave, paired by App and type. Only for a write that
   * changes at most one row (a primary key's update) and implies at most one event of a type:
   * each given id is written once.
   */
  together?: { method: string; expected: (...args: Parameters<M>) => ImpliedEvent[]; dataFromRow?: true };
}

export type WriteRules = {
  [R in keyof Repos]?: {
    [K in keyof Repos[R]]?: NonNullable<Repos[R][K]> extends Method
      ? WriteRule<NonNullable<Repos[R][K]>>
      : never;
  };
};

/** An invitation's event data: never its token hash. */
const invitationData = (i: { id: string; organization_id: string; email: string; roles: string[] }) => ({
  organization_id: i.organization_id,
  invitation_id: i.id,
  email: i.email,
  roles: i.roles,
});

/** An SSO connection's event data: never its secret, sealed or not. */
const ssoData = (c: { id: string; organization_id: string; issuer: string; client_id: string }) => ({
  organization_id: c.organization_id,
  connection_id: c.id,
  issuer: c.issuer,
  client_id: c.client_id,
});

const one = (app_id: string, type: EventType, data: Record<string, unknown>): ImpliedEvent[] => [
  { app_id, type, data },
];
const none: ImpliedEvent[] = [];

const contactRules = (noun: 'email' | 'phone_number', idField: 'email_id' | 'phone_id') => {
  const data = (c: ContactRecord) => ({
    user_id: c.user_id,
    [idField]: c.id,
    [noun === 'email' ? 'email' : 'phone_number']: c.address,
  });
  const added = (c: ContactRecord) => one(c.app_id, `${noun}.added`, data(c));
  const created = (u: UserRecord, c: ContactRecord) => [...userCreated(u), ...added(c)];
  return {
    // A sign-in to a new address: the user's and the contact's events, as users.insert and
    // insert would write them, in one statement where the repo can.
    findOrCreateWithUser: {
      events: (r: FoundOrCreated, u: UserRecord, c: ContactRecord) => (r.user_created ? created(u, c) : none),
      together: { method: 'findOrCreateWithUserAndEvents', expected: created },
    },
    // The same, with the new contact's first code or link written by that one step too.
    findOrCreateWithUserAndOtp: {
      events: (r: FoundOrCreated, u: UserRecord, c: ContactRecord) => (r.user_created ? created(u, c) : none),
      together: { method: 'findOrCreateWithUserOtpAndEvents', expected: created },
    },
    findOrCreateWithUserAndLink: {
      events: (r: FoundOrCreated, u: UserRecord, c: ContactRecord) => (r.user_created ? created(u, c) : none),
      together: { method: 'findOrCreateWithUserLinkAndEvents', expected: created },
    },
    insert: {
      events: (r: { inserted: boolean }, c: ContactRecord) =>
        r.inserted ? one(c.app_id, `${noun}.added`, data(c)) : none,
      together: {
        method: 'insertWithEvents',
        expected: (c: ContactRecord) => one(c.app_id, `${noun}.added`, data(c)),
      },
    },
    markVerified: {
      events: (c: ContactRecord | null) => (c ? one(c.app_id, `${noun}.verified`, data(c)) : none),
      together: {
        method: 'markVerifiedWithEvents',
        expected: (appId: string) => one(appId, `${noun}.verified`, {}),
        dataFromRow: true as const,
      },
    },
    delete: {
      events: (c: ContactRecord | null) => (c ? one(c.app_id, `${noun}.removed`, data(c)) : none),
    },
  };
};

const sessionData = (s: SessionRecord) => ({
  session_id: s.id,
  user_id: s.user_id,
  expires_at: s.expires_at,
  factors: s.factors.map((f) => ({
    type: f.type,
    delivery_channel: f.delivery_channel,
    method_id: f.method.method_id,
  })),
});

const signatureEvents = (entry: WalletSignatureRecord) =>
  one(entry.app_id, entry.decision === 'allowed' ? 'signature.made' : 'signature.refused', {
    wallet_id: entry.wallet_id,
    signature_id: entry.id,
    method: entry.method,
    chain: entry.chain,
    payload_digest: entry.payload_digest,
    ...(entry.decision === 'refused'
      ? { policy_id: entry.policy_id, rule_index: entry.rule_index, rule_kind: entry.rule_kind }
      : {}),
  });

const consumeFailure = (appId: string, methodId: string, reason: string) =>
  one(appId, reason === 'too_many_attempts' ? 'sign_in.locked_out' : 'sign_in.failed', {
    method: 'otp',
    method_id: methodId,
    reason,
  });

const linkData = (l: OAuthLinkRecord) => ({
  user_id: l.user_id,
  link_id: l.id,
  provider_id: l.provider_id,
  issuer: l.issuer,
});

const passwordCreated = (p: { app_id: string; user_id: string }, source: string) =>
  one(p.app_id, 'password.created', { user_id: p.user_id, source });

const userCreated = (u: UserRecord) => one(u.app_id, 'user.created', { user_id: u.id, status: u.status });

const walletCreated = (w: WalletRecord) =>
  one(w.app_id, 'wallet.created', {
    user_id: w.user_id,
    wallet_id: w.id,
    wallet_type: w.wallet_type,
    public_address: w.public_address,
    key_source: w.key_source,
  });

/** The state changes of a sent transaction that are events, by the status reached. */
const TRANSACTION_EVENT = {
  submitted: 'wallet.transaction.sent',
  confirmed: 'wallet.transaction.confirmed',
  failed: 'wallet.transaction.failed',
  replaced: 'wallet.transaction.replaced',
} as const satisfies Partial<Record<WalletTransactionRecord['status'], EventType>>;

const transactionEvents = (t: WalletTransactionRecord | null): ImpliedEvent[] => {
  if (!t || !(t.status in TRANSACTION_EVENT)) return none;
  return one(t.app_id, TRANSACTION_EVENT[t.status as keyof typeof TRANSACTION_EVENT], {
    wallet_id: t.wallet_id,
    transaction_id: t.id,
    chain_id: t.chain_id,
    nonce: t.nonce,
    transaction_hash: t.transaction_hash,
    ...(t.status === 'replaced' ? { replaced_by: t.replaced_by } : {}),
    ...(t.status === 'confirmed' || t.status === 'failed'
      ? { block_number: t.block_number, gas_used: t.gas_used, fee: t.fee }
      : {}),
  });
};

/** The transaction as a patch leaves it (an undefined field leaves the field as it was, as repos apply it). */
const patched = (t: WalletTransactionRecord, patch: WalletTransactionPatch): WalletTransactionRecord => ({
  ...t,
  ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
});

const memberData = (m: { organization_id: string; id: string; user_id: string; roles: string[] }) => ({
  organization_id: m.organization_id,
  member_id: m.id,
  user_id: m.user_id,
  roles: m.roles,
});

/**
 * Which storage writes are events. Kept at the storage boundary so that every code path making
 * one of these changes emits its event, in the change's own transaction (docs/events.md).
 */
export const writeRules: WriteRules = {
  users: {
    insert: {
      events: (_r, u) => userCreated(u),
      together: { method: 'insertWithEvents', expected: (u) => userCreated(u) },
    },
  },
  emails: contactRules('email', 'email_id'),
  phoneNumbers: contactRules('phone_number', 'phone_id'),
  sessions: {
    insert: {
      events: (_r, s) => one(s.app_id, 'session.created', sessionData(s)),
      // Every sign-in's session: one statement, not begin, two inserts and commit.
      together: {
        method: 'insertWithEvents',
        expected: (s) => one(s.app_id, 'session.created', sessionData(s)),
      },
    },
    touch: {
      // The hot path (activity only) implies nothing and must not pay for a transaction.
      when: (_app, _id, _now, change) => change.expiresAt !== undefined,
      events: (s) => (s ? one(s.app_id, 'session.extended', sessionData(s)) : none),
    },
    revoke: {
      events: (s, _app, _id, _now, reason) =>
        s ? one(s.app_id, 'session.revoked', { ...sessionData(s), reason: reason ?? 'admin' }) : none,
    },
    revokeByUser: {
      events: (revoked, _app, _user, _now, _except, reason) =>
        revoked.flatMap((s) =>
          one(s.app_id, 'session.revoked', { ...sessionData(s), reason: reason ?? 'admin' }),
        ),
    },
    revokeByOrganization: {
      events: (revoked, _app, _org, _now, _user, reason) =>
        revoked.flatMap((s) =>
          one(s.app_id, 'session.revoked', { ...sessionData(s), reason: reason ?? 'organization' }),
        ),
    },
  },
  // Organizations (docs/organizations.md); the parameters are typed by the rule's repo method,
  // so this file imports nothing from organizations/ (which imports the kernel, which imports here).
  organizations: {
    insert: {
      events: (r, o) =>
        r.inserted
          ? one(o.app_id, 'organization.created', { organization_id: o.id, name: o.name, slug: o.slug })
          : none,
    },
    update: {
      events: (r) =>
        r.ok
          ? one(r.organization.app_id, 'organization.updated', {
              organization_id: r.organization.id,
              name: r.organization.name,
              slug: r.organization.slug,
            })
          : none,
    },
    delete: {
      events: (o) =>
        o ? one(o.app_id, 'organization.deleted', { organization_id: o.id, slug: o.slug }) : none,
    },
    insertMember: {
      events: (r, m, joinedBy) =>
        r.inserted
          ? one(m.app_id, 'organization.member.added', {
              ...memberData(m),
              ...(joinedBy === undefined ? {} : { joined_by: joinedBy }),
            })
          : none,
    },
    updateMemberRoles: {
      events: (r) =>
        r.ok ? one(r.member.app_id, 'organization.member.updated', memberData(r.member)) : none,
    },
    deleteMember: {
      events: (r) =>
        r.ok ? one(r.member.app_id, 'organization.member.removed', memberData(r.member)) : none,
    },
    insertInvitation: {
      events: (_r, i) => one(i.app_id, 'organization.invitation.created', invitationData(i)),
    },
    revokeInvitation: {
      events: (i) => (i ? one(i.app_id, 'organization.invitation.revoked', invitationData(i)) : none),
    },
    consumeInvitation: {
      events: (r) =>
        r.ok
          ? one(r.invitation.app_id, 'organization.invitation.accepted', invitationData(r.invitation))
          : none,
    },
  },
  // Organizations' SSO connections (sso/): never the sealed secret.
  sso: {
    insertConnection: {
      events: (r, c) =>
        r.inserted ? one(c.app_id, 'organization.sso.connection_created', ssoData(c)) : none,
    },
    updateConnection: {
      events: (c) => (c ? one(c.app_id, 'organization.sso.connection_updated', ssoData(c)) : none),
    },
    deleteConnection: {
      events: (c) => (c ? one(c.app_id, 'organization.sso.connection_deleted', ssoData(c)) : none),
    },
  },
  otps: {
    consume: {
      events: (r, appId, methodId) =>
        r.ok || r.reason === 'not_found' || r.reason === 'expired' || r.reason === 'used'
          ? none
          : consumeFailure(appId, methodId, r.reason),
      // Every passcode check: one statement, not begin, the check and commit. The repo writes
      // the one alternative whose `reason` is the verdict.
      together: {
        method: 'consumeWithEvents',
        expected: (appId, methodId) =>
          (['mismatch', 'device_mismatch', 'too_many_attempts'] as const).flatMap((reason) =>
            consumeFailure(appId, methodId, reason),
          ),
      },
    },
  },
  passwords: {
    insert: {
      events: (r, p, source) => (r.inserted ? passwordCreated(p, source) : none),
      // A sign-up's password: one statement, not begin, the insert, its event and commit.
      together: { method: 'insertWithEvents', expected: passwordCreated },
    },
    replace: {
      events: (p, _appId, _userId, _hash, _now, reason) =>
        p ? one(p.app_id, 'password.changed', { user_id: p.user_id, reason }) : none,
    },
  },
  oauth: {
    insertLink: {
      events: (r) => (r.inserted ? one(r.link.app_id, 'user.oauth_linked', linkData(r.link)) : none),
      // Inserted, the stored link is the one passed in: its event rides the insert.
      together: {
        method: 'insertLinkWithEvents',
        expected: (l) => one(l.app_id, 'user.oauth_linked', linkData(l)),
      },
    },
    deleteLink: {
      events: (l) => (l ? one(l.app_id, 'user.oauth_unlinked', linkData(l)) : none),
    },
  },
  totps: {
    createPending: {
      events: (r, t) =>
        r.created ? one(t.app_id, 'totp.created', { user_id: t.user_id, totp_id: t.id }) : none,
    },
    activate: {
      events: (t) => (t ? one(t.app_id, 'totp.activated', { user_id: t.user_id, totp_id: t.id }) : none),
    },
    delete: {
      events: (t) => (t ? one(t.app_id, 'totp.deleted', { user_id: t.user_id, totp_id: t.id }) : none),
    },
  },
  webauthn: {
    insertCredential: {
      events: (r, c) =>
        r.inserted
          ? one(c.app_id, 'passkey.registered', { user_id: c.user_id, webauthn_credential_id: c.id })
          : none,
    },
    delete: {
      events: (c) =>
        c ? one(c.app_id, 'passkey.removed', { user_id: c.user_id, webauthn_credential_id: c.id }) : none,
    },
  },
  // The audit trail's entry is the event: a signature made, or a request a policy refused.
  walletSignatures: {
    insert: {
      when: (entry) => entry.decision !== 'failed',
      events: (_r, entry) => signatureEvents(entry),
      // Every signature's hot path: one statement, not begin, three inserts and commit.
      together: { method: 'insertWithEvents', expected: (entry) => signatureEvents(entry) },
    },
  },
  // A transition happens once (it is conditional on the status it leaves): so does its event.
  walletTransactions: {
    transition: {
      when: (_app, _id, _from, patch) => patch.status !== undefined && patch.status in TRANSACTION_EVENT,
      events: (t) => transactionEvents(t),
    },
    // The send's steps (signed with its audit entry, submitted): one statement each where the
    // repo can. The caller holds the transaction, so the events are known before the write.
    advance: {
      events: (moved, _t, _from, _patch, signature) => [
        ...(signature ? signatureEvents(signature) : none),
        ...transactionEvents(moved),
      ],
      together: {
        method: 'advanceWithEvents',
        expected: (t, _from, patch, signature) => [
          ...(signature ? signatureEvents(signature) : none),
          ...transactionEvents(patched(t, patch)),
        ],
      },
    },
  },
  wallets: {
    insert: {
      events: (r, w) =>
        r.inserted
          ? one(w.app_id, w.key_source === 'imported' ? 'wallet.imported' : 'wallet.created', {
              user_id: w.user_id,
              wallet_id: w.id,
              wallet_type: w.wallet_type,
              public_address: w.public_address,
              key_source: w.key_source,
            })
          : none,
    },
    createDefaultIfAbsent: {
      // Created, the stored row is the one passed in.
      events: (r) => (r.created ? walletCreated(r.wallet) : none),
      together: { method: 'createDefaultIfAbsentWithEvents', expected: (w) => walletCreated(w) },
    },
    createDefaultWithSeed: {
      events: (stored) => (stored ? walletCreated(stored) : none),
      together: { method: 'createDefaultWithSeedAndEvents', expected: (_seed, w) => walletCreated(w) },
    },
  },
};
