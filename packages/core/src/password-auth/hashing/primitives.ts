/**
 * The slow functions password hashing is made of, behind one small interface so each runtime
 * can supply its fastest (see `engine.ts`). Every implementation gives the same bytes.
 */
export interface Argon2Input {
  variant: 'argon2id' | 'argon2i';
  version: 16 | 19;
  password: Uint8Array;
  salt: Uint8Array;
  memoryKiB: number;
  iterations: number;
  parallelism: number;
  tagLength: number;
}

export interface ScryptInput {
  password: Uint8Array;
  salt: Uint8Array;
  N: number;
  r: number;
  p: number;
  dkLen: number;
}

export interface Pbkdf2Input {
  digest: 'sha256' | 'sha512';
  password: Uint8Array;
  salt: Uint8Array;
  iterations: number;
  dkLen: number;
}

export interface HashPrimitives {
  /** Where the work runs, for the bench and the docs: "node-argon2", "worker-wasm", … */
  readonly name: string;
  argon2(input: Argon2Input): Promise<Uint8Array>;
  /** bcrypt's own check of a `$2a$/$2b$/$2y$` string. */
  bcryptVerify(password: string, encoded: string): Promise<boolean>;
  scrypt(input: ScryptInput): Promise<Uint8Array>;
  pbkdf2(input: Pbkdf2Input): Promise<Uint8Array>;
  /** Stops any threads the primitives started. */
  close(): Promise<void>;
}
