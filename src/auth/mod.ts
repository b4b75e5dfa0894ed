/**
 * Authentication and authorization: bearer tokens resolved to grants
 * (by their SHA-256 digest, `hashToken` in `src/store/`), role permissions,
 * the failed-authentication bound, and the pipeline step that applies them.
 *
 * The door of `src/auth/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "./authenticate.ts";
export * from "./authentication.ts";
export * from "./failed_auth.ts";
