/**
 * A coarse, human label for a session's device from its user agent ("Chrome on macOS"), for a
 * list of signed-in devices. Deliberately coarse: no versions, no device models, so the label
 * adds nothing a user could be told apart by beyond what the list already shows. Order matters:
 * Edge and Opera say "Chrome", Chrome says "Safari", every Android browser says "Linux".
 */
export function deviceLabel(userAgent: string | null | undefined): string {
  const ua = userAgent?.trim() ?? '';
  if (ua === '') return 'Unknown device';
  const browser = firstMatch(ua, BROWSERS);
  const os = firstMatch(ua, SYSTEMS);
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? 'Unknown device';
}

type Rule = readonly [RegExp, string];

const BROWSERS: readonly Rule[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bCriOS\/|\bChrome\/|\bChromium\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
  [/\bnode\b|\bundici\b/i, 'Node.js'],
];

const SYSTEMS: readonly Rule[] = [
  [/\biPhone\b|\biPad\b|\biPod\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bLinux\b/, 'Linux'],
];

const firstMatch = (ua: string, rules: readonly Rule[]) => rules.find(([re]) => re.test(ua))?.[1];
