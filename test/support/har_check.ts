/**
 * HAR 1.2 validation with the `har-schema` package's JSON Schemas (the ones
 * `har-validator` used), compiled by ajv 8 with formats: the `har.json`
 * schema and every one it refers to.
 *
 * @module
 */
import { Ajv } from "ajv";
import * as ajvFormats from "ajv-formats";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const harSchemas: Record<string, object> = require("har-schema");

// har-schema's schemas are draft-06 and use `min`, which is no keyword.
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json"));
// ajv-formats is CommonJS: its function is the default export, which some
// runtimes wrap once more.
type AddFormats = (ajv: Ajv) => void;
const formats = ajvFormats as unknown as {
  default: AddFormats | { default: AddFormats };
};
(typeof formats.default === "function"
  ? formats.default
  : formats.default.default)(ajv);
for (const schema of Object.values(harSchemas)) {
  ajv.addSchema(schema);
}
const validate = ajv.getSchema("har.json#")!;

/** The problems of a document against HAR 1.2; none when it is valid. */
export function harProblems(document: unknown): string[] {
  if (validate(document)) return [];
  return (validate.errors ?? []).map((error) =>
    `${error.instancePath} ${error.message}`
  );
}
