/**
 * Checks a response against the OpenAPI document: the status is documented
 * for the operation, the content type is the documented one, and a JSON body
 * validates against its schema (the JSON Schema subset the document uses).
 *
 * @module
 */
import assert from "node:assert/strict";
import { openApiDocument } from "../../src/openapi.ts";

type Schema = Record<string, unknown>;

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
  const problems = validate(body, media.schema, "body");
  assert.deepEqual(
    problems,
    [],
    `${method} ${path} ${response.status}: ${JSON.stringify(body)}`,
  );
}

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace("#/components/schemas/", "");
  const schemas = openApiDocument.components.schemas as unknown as Record<
    string,
    Schema
  >;
  return schemas[name]!;
}

function validate(value: unknown, raw: Schema, at: string): string[] {
  const schema = resolve(raw);
  const problems: string[] = [];
  if (Array.isArray(schema.anyOf)) {
    const fits = (schema.anyOf as Schema[]).some((s) =>
      validate(value, s, at).length === 0
    );
    return fits ? [] : [`${at}: matches no anyOf branch`];
  }
  if ("const" in schema && value !== schema.const) {
    problems.push(`${at}: not ${schema.const}`);
  }
  switch (schema.type) {
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return [`${at}: not an object`];
      }
      const object = value as Record<string, unknown>;
      for (const key of (schema.required as string[] | undefined) ?? []) {
        if (!(key in object)) problems.push(`${at}.${key}: missing`);
      }
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      for (const [key, sub] of Object.entries(properties)) {
        if (key in object) {
          problems.push(...validate(object[key], sub, `${at}.${key}`));
        }
      }
      break;
    }
    case "array": {
      if (!Array.isArray(value)) return [`${at}: not an array`];
      const items = schema.items as Schema | undefined;
      if (items) {
        value.forEach((item, i) =>
          problems.push(...validate(item, items, `${at}[${i}]`))
        );
      }
      break;
    }
    case "string":
      if (typeof value !== "string") return [`${at}: not a string`];
      if (
        typeof schema.pattern === "string" &&
        !new RegExp(schema.pattern).test(value)
      ) {
        problems.push(`${at}: does not match ${schema.pattern}`);
      }
      break;
    case "integer":
      if (!Number.isInteger(value)) problems.push(`${at}: not an integer`);
      break;
  }
  return problems;
}
