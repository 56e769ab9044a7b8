import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/** zxcvbn's verdict on a password, in the API's units. */
export interface PasswordEstimate {
  /** 0 (too guessable) to 4 (very unguessable): zxcvbn's thresholds at 10^3, 10^6, 10^8, 10^10 guesses. */
  score: 0 | 1 | 2 | 3 | 4;
  guesses: number;
  /** Seconds to crack offline at 10^10 guesses per second (a fast, unsalted hash on GPUs). */
  crack_time: number;
  crack_time_display: string;
  feedback: { warning: string; suggestions: string[] };
}

/**
 * Characters analysed (NIST SP 800-63B's minimum a verifier must accept). Matching cost grows
 * with the square of the length (every substring is looked up in every dictionary, once per
 * l33t variant): a 256-character l33t-heavy string costs seconds in full, about a tenth of one
 * cut to 64. Longer passwords are judged on their first 64 characters, which only ever
 * underestimates them; past 64, anything but a repetition scores 4 anyway.
 */
export const ANALYSED_LENGTH = 64;

/**
 * At most this many l33t substitutions are tried per password: each one multiplies the
 * dictionary passes, and scores against the original zxcvbn do not change above it (see
 * docs/passwords.md).
 */
const L33T_MAX_SUBSTITUTIONS = 10;

let loading: Promise<ZxcvbnFactory> | undefined;

/**
 * The estimator with the common and English dictionaries, loaded once per process on first use
 * (about a quarter of a second) and shared by every Latchkey in it. Levenshtein matching stays
 * off: it costs 20 times more per check and moves scores away from the original zxcvbn's.
 */
export function loadEstimator(): Promise<ZxcvbnFactory> {
  loading ??= (async () => {
    const [{ ZxcvbnFactory }, common, en] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
      import('@zxcvbn-ts/language-en'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...en.dictionary },
      graphs: common.adjacencyGraphs,
      translations: en.translations,
      useLevenshteinDistance: false,
      l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
      maxLength: ANALYSED_LENGTH,
    });
  })().catch((err: unknown) => {
    loading = undefined; // let the next call try again
    throw err;
  });
  return loading;
}

/** Scores `password`, treating `userInputs` (the user's email, names) as a dictionary of its own. */
export async function estimatePassword(password: string, userInputs: string[]): Promise<PasswordEstimate> {
  const zxcvbn = await loadEstimator();
  const result = zxcvbn.check(password, userInputs);
  const offline = result.crackTimes.offlineFastHashingXPerSecond;
  return {
    score: result.score,
    guesses: result.guesses,
    crack_time: offline.seconds,
    crack_time_display: offline.display,
    feedback: { warning: result.feedback.warning ?? '', suggestions: result.feedback.suggestions },
  };
}
