/**
 * The edge's view of revoked sessions: it holds no database, so it polls the App's revocation
 * feed (`GET /v1/auth/sessions/revocations`) at most every `refreshSeconds` and refuses the
 * sessions listed. A revoked session then passes the edge for at most that long (plus the
 * feed's own 5 s of caching), instead of until its JWT expires.
 */
export interface EdgeRevocationOptions {
  /** The feed: `https://your.site/api/v1/auth/sessions/revocations`. */
  url: string | URL;
  /** The App's public token (the feed lists only that App's revocations). */
  publicToken: string;
  /** How old the list may get before a request waits for a fresh one; default 5 s. */
  refreshSeconds?: number;
}

/** Polls are read from this many seconds before the last answer: clocks and commits lag a little. */
const OVERLAP_SECONDS = 5;
const MAX_FEEDS = 20;

interface Feed {
  revoked: Map<string, number>;
  until: number | undefined;
  fetchedAt: number;
  pending: Promise<void> | undefined;
}

const feeds = new Map<string, Feed>();

function feedOf(key: string): Feed {
  let feed = feeds.get(key);
  if (feed === undefined) {
    if (feeds.size >= MAX_FEEDS) feeds.delete(feeds.keys().next().value as string);
    feed = { revoked: new Map(), until: undefined, fetchedAt: 0, pending: undefined };
    feeds.set(key, feed);
  }
  return feed;
}

async function refresh(feed: Feed, options: EdgeRevocationOptions, now: number): Promise<void> {
  const url = new URL(String(options.url));
  if (feed.until !== undefined) url.searchParams.set('since', String(feed.until - OVERLAP_SECONDS));
  const response = await fetch(url, { headers: { authorization: `Bearer ${options.publicToken}` } });
  if (!response.ok) throw new Error(`latchkey: the revocation feed answered ${response.status}`);
  const body = (await response.json()) as {
    revocations?: Array<{ session_id?: unknown; revoked_at?: unknown }>;
    until?: unknown;
  };
  if (!Array.isArray(body.revocations) || typeof body.until !== 'number')
    throw new Error('latchkey: the revocation feed gave an unexpected answer');
  for (const r of body.revocations)
    if (typeof r.session_id === 'string' && typeof r.revoked_at === 'number')
      feed.revoked.set(r.session_id, r.revoked_at);
  // A JWT outlives its session's revocation by at most an hour (the longest JWT lifetime).
  for (const [id, at] of feed.revoked) if (at < now - 3660) feed.revoked.delete(id);
  feed.until = body.until;
  feed.fetchedAt = now;
}

/**
 * Whether the feed lists the session, refreshing the list first when it is older than
 * `refreshSeconds`. Concurrent requests share one fetch. A feed that cannot be read throws: a
 * fault of the server, as an unreadable JWKS is.
 */
export async function isRevokedAtEdge(sessionId: string, options: EdgeRevocationOptions): Promise<boolean> {
  const feed = feedOf(`${String(options.url)} ${options.publicToken}`);
  const now = Math.floor(Date.now() / 1000);
  if (now - feed.fetchedAt >= (options.refreshSeconds ?? 5)) {
    feed.pending ??= refresh(feed, options, now).finally(() => {
      feed.pending = undefined;
    });
    await feed.pending;
  }
  return feed.revoked.has(sessionId);
}
