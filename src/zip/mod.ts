/**
 * The streaming ZIP writer of the bulk export.
 *
 * The door of `src/zip/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "./zip_stream.ts";
