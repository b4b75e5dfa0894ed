/**
 * The API's operations, one module each (bulk download, call messages,
 * integration deletion, trigger test, health), and what they use alone:
 * export slots, trigger events. The endpoint types they are wrapped in
 * belong to `src/http/`. The transcript archive is not exported here: the
 * bulk download loads it at the first export (transcript_archive.ts), so
 * that a server starts without the ZIP writer.
 *
 * The door of `src/operations/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "./bulk_download.ts";
export * from "./call_messages.ts";
export * from "./delete_integration.ts";
export * from "./export_slots.ts";
export * from "./health.ts";
export * from "./test_trigger.ts";
export * from "./trigger_events.ts";
