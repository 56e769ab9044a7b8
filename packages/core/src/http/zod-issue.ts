import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

/** An issue and where it is in the whole input (a union's branch issues are relative to it). */
export interface LocatedIssue {
  issue: Issue;
  path: PropertyKey[];
}

/** Whether the input has a value at `path`: a wrong value is said before a missing one. */
export type IsPresent = (path: readonly PropertyKey[]) => boolean;

/**
 * The issue a caller can act on: zod's first one, and inside a union whose every branch failed,
 * the branch the caller meant, down to its most telling issue. A union failing on the value
 * itself in every branch (`'legacy' | 0 | 2`) stays whole: its expectation names every branch.
 */
export function mostSpecificIssue(
  issues: readonly Issue[],
  isPresent: IsPresent,
  base: PropertyKey[] = [],
): LocatedIssue | undefined {
  const issue = issues[0];
  if (!issue) return undefined;
  return descend(issue, isPresent, base);
}

function descend(issue: Issue, isPresent: IsPresent, base: PropertyKey[]): LocatedIssue {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || issue.errors.length === 0 || failsOnValue(issue.errors)) {
    return { issue, path };
  }
  const branch = closestBranch(issue.errors, isPresent, path);
  return descend(mostTelling(branch, isPresent, path), isPresent, path);
}

/** Every branch refused the value itself, not something inside it. */
const failsOnValue = (branches: readonly (readonly Issue[])[]) =>
  branches.every(
    (b) =>
      b.length === 1 && b[0]!.path.length === 0 && ['invalid_type', 'invalid_value'].includes(b[0]!.code),
  );

/**
 * The branch the caller most likely meant: the one that knows the most of the fields sent, then
 * the one that finds the fewest of them wrong, then the one with the fewest issues; the first on
 * a tie.
 */
function closestBranch(
  branches: readonly (readonly Issue[])[],
  isPresent: IsPresent,
  base: PropertyKey[],
): readonly Issue[] {
  const score = (b: readonly Issue[]) => {
    const unknown = b.reduce((n, i) => n + (i.code === 'unrecognized_keys' ? i.keys.length : 0), 0);
    const wrong = b.filter(
      (i) => i.code !== 'unrecognized_keys' && (i.path.length === 0 || isPresent([...base, ...i.path])),
    ).length;
    // With the fields known and wrong ones alike, fewer issues is fewer fields missing.
    return [unknown, wrong, b.length];
  };
  let best = branches[0]!;
  let bestScore = score(best);
  for (const branch of branches.slice(1)) {
    const s = score(branch);
    const better = s.findIndex((v, i) => v !== bestScore[i]!);
    if (better >= 0 && s[better]! < bestScore[better]!) [best, bestScore] = [branch, s];
  }
  return best;
}

/** Within one branch: a value that is there but wrong, then an unknown field, then the first. */
function mostTelling(branch: readonly Issue[], isPresent: IsPresent, base: PropertyKey[]): Issue {
  const wrong = branch.find(
    (i) => i.code !== 'unrecognized_keys' && (i.path.length === 0 || isPresent([...base, ...i.path])),
  );
  return wrong ?? branch.find((i) => i.code === 'unrecognized_keys') ?? branch[0]!;
}

const literal = (v: unknown) => (typeof v === 'bigint' ? `${v}` : JSON.stringify(v));

const oneOf = (values: readonly unknown[]) =>
  values.length === 1 ? literal(values[0]) : `one of ${values.map(literal).join(', ')}`;

/**
 * What the field should be, from the issue alone. zod 4 keeps the input out of its issues and
 * its messages, and so does this: a password or a key sent in the wrong shape is never echoed.
 */
export function expectation(issue: Issue): string {
  // A schema's own message says it best; zod's defaults start with these words.
  const zodDefault = /^Invalid (input|option): /.test(issue.message);
  switch (issue.code) {
    case 'invalid_value':
      return zodDefault ? `expected ${oneOf(issue.values)}` : issue.message;
    case 'invalid_type':
      // "expected string, received number": the received type, never the value.
      return issue.message.replace(/^Invalid input: /, '');
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (issue.errors.length === 0)
        return options ? `expected one of ${options.map(literal).join(', ')}` : issue.message;
      const values = issue.errors.flatMap((b) => (b[0]?.code === 'invalid_value' ? b[0].values : []));
      const types = [
        ...new Set(issue.errors.flatMap((b) => (b[0]?.code === 'invalid_type' ? [b[0].expected] : []))),
      ];
      // One type in every branch (two object shapes): zod's own words, with the type received.
      if (values.length === 0 && types.length === 1) return expectation(issue.errors[0]![0]!);
      const parts = [...(values.length ? [oneOf(values)] : []), ...types];
      return `expected ${parts.join(' or ')}`;
    }
    default:
      return issue.message;
  }
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `items[3].to`, `routes["POST /v1/x"].limit`: how a person reads a path into JSON. */
export function readablePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}
