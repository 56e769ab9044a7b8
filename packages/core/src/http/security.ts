/** OpenAPI security requirements: which kind of key a route takes. */
export const secretKeySecurity = [{ secretKey: [] }];
export const anyKeySecurity = [{ secretKey: [] }, { publicToken: [] }];
export const openSecurity: Array<Record<string, string[]>> = [];

export const securitySchemes = {
  secretKey: {
    type: 'http',
    scheme: 'bearer',
    description: "The App's secret key, `sk_…`. Server side only.",
  },
  publicToken: {
    type: 'http',
    scheme: 'bearer',
    description: "The App's public token, `pk_…`. Accepted where the caller proves the identity itself.",
  },
} as const;
