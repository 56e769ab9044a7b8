/** The library version, reported in the OpenAPI document. */
export const VERSION = '0.0.0';
