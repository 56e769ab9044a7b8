type SecurityRequirement = Record<string, string[]>;

/** OpenAPI security requirements: which kind of key a route takes. */
export const secretKeySecurity: SecurityRequirement[] = [{ secretKey: [] }];
export const anyKeySecurity: SecurityRequirement[] = [{ secretKey: [] }, { publicToken: [] }];
export const openSecurity: SecurityRequirement[] = [];

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
