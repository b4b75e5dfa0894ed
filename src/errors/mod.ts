/**
 * The error every layer above may throw and `src/http/` renders: an
 * {@linkcode HttpError}, answered as an ErrorResponseSchema body. It sits
 * below the other folders so that the FastAPI compatibility layer
 * (`src/validation/`) can throw it without importing HTTP; `src/http/`
 * re-exports it as part of its own interface.
 *
 * The door of `src/errors/`: the rest of the project imports this folder
 * through this module (or `src/http/mod.ts`) only.
 *
 * @module
 */
export * from "./http_error.ts";
