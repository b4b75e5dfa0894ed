/**
 * The API's OpenAPI 3.1 document, served at `/openapi.json`, with the
 * examples drawn from the demo fixtures.
 *
 * The door of `src/openapi/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "./document.ts";
export * from "./examples.ts";
