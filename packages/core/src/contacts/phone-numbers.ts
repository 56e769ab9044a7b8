/**
 * libphonenumber-js with its full metadata weighs more at import than most of core; only phone
 * numbers need it, so it loads on the first one.
 */
let loading: Promise<typeof import('libphonenumber-js/max')> | undefined;

export const loadPhoneNumbers = () => (loading ??= import('libphonenumber-js/max'));
