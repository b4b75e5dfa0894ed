/**
 * Checks a response against the OpenAPI document: the status is documented
 * for the operation, the content type is the documented one, and a JSON body
 * validates against its schema (JSON Schema 2020-12, by Ajv).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as ajvFormats from "ajv-formats";
import { openApiDocument } from "../../src/openapi/document.ts";

type Schema = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its function is the default export, which some
// runtimes wrap once more.
type AddFormats = (ajv: Ajv2020) => void;
const formats = ajvFormats as unknown as {
  default: AddFormats | { default: AddFormats };
};
(typeof formats.default === "function"
  ? formats.default
  : formats.default.default)(ajv);
const validators = new WeakMap<Schema, ReturnType<typeof ajv.compile>>();

/**
 * The problems of a value against one of the document's schemas (whose
 * `$ref`s point into the document's components); none when it fits.
 */
export function schemaProblems(value: unknown, schema: Schema): string[] {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = ajv.compile({
      ...schema,
      components: openApiDocument.components,
    });
    validators.set(schema, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error) =>
    `${error.instancePath || "/"} ${error.message}`
  );
}

/** Asserts that a response is one the document describes. */
export async function assertMatchesOpenApi(
  method: string,
  path: string,
  response: Response,
): Promise<void> {
  const paths = openApiDocument.paths as unknown as Record<
    string,
    Record<string, Schema>
  >;
  const operation = paths[path]?.[method];
  assert.ok(operation, `${method} ${path} is not documented`);
  const responses = operation.responses as Record<string, Schema>;
  const documented = responses[String(response.status)];
  assert.ok(
    documented,
    `${method} ${path}: status ${response.status} is not documented`,
  );
  const content = documented.content as
    | Record<string, { schema: Schema }>
    | undefined;
  if (content === undefined) {
    assert.equal(await response.text(), "", `${response.status} has no body`);
    return;
  }
  const type = response.headers.get("content-type") ?? "";
  const media = content[type];
  assert.ok(
    media,
    `${method} ${path} ${response.status}: content type ${type} not documented`,
  );
  if (type !== "application/json") {
    await response.body?.cancel();
    return;
  }
  const body = await response.json();
  assert.deepEqual(
    schemaProblems(body, media.schema),
    [],
    `${method} ${path} ${response.status}: ${JSON.stringify(body)}`,
  );
}
