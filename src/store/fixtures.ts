/**
 * The public seeding format shared by the server, the mock and the tests, and
 * its validation. A fixtures document is checked whole before any store sees
 * it: one bad entry refuses the document with the offending path, nothing is
 * half-loaded.
 *
 * @module
 */
import { scheduleProblem } from "./schedule.ts";
import { type Role, ROLES, type Trigger } from "./store.ts";
import { parseUuid } from "../validation/mod.ts";

/** A project. */
export interface ProjectFixture {
  /** The project's id: a UUID, lowercase hyphenated once parsed. */
  project_id: string;
  /** The project's name, not empty. */
  name: string;
}

/** A bearer token in clear; stores keep only its hash. */
export interface TokenFixture {
  /** The token as clients send it after `Bearer `; unique, not empty. */
  token: string;
  /** The project the token grants access to (UUID). */
  project_id: string;
  /** The token's role within that project. */
  role: Role;
}

/** A call with its transcript; each message is any JSON object. */
export interface CallFixture {
  /** The call's id (UUID). */
  call_id: string;
  /** The project the call belongs to (UUID). */
  project_id: string;
  /** ISO 8601 date-time. */
  created_at: string;
  /** The transcript's messages, in order. */
  messages: Record<string, unknown>[];
}

/** An HTTP tool of an HTTP integration. */
export interface ToolFixture {
  /** The tool's id (UUID), unique across every integration. */
  tool_id: string;
  /** The tool's name, not empty. */
  name: string;
}

/** An MCP integration, with its tool cache. */
export interface McpIntegrationFixture {
  /** The integration's id (UUID). */
  integration_id: string;
  /** The project the integration belongs to (UUID). */
  project_id: string;
  /** Marks an MCP integration. */
  kind: "mcp";
  /** The integration's name, not empty. */
  name: string;
  /** The cached tools, each any JSON object, kept as given. */
  cached_tools: Record<string, unknown>[];
}

/** An HTTP integration, with its HTTP tools. */
export interface HttpIntegrationFixture {
  /** The integration's id (UUID). */
  integration_id: string;
  /** The project the integration belongs to (UUID). */
  project_id: string;
  /** Marks an HTTP integration. */
  kind: "http";
  /** The integration's name, not empty. */
  name: string;
  /** The integration's HTTP tools. */
  tools: ToolFixture[];
}

/** An integration of either kind. */
export type IntegrationFixture = McpIntegrationFixture | HttpIntegrationFixture;

/** A workflow with its trigger. */
export interface FlowFixture {
  /** The workflow's id (UUID). */
  flow_id: string;
  /** The project the workflow belongs to (UUID). */
  project_id: string;
  /** The workflow's name, not empty. */
  name: string;
  /** What starts the workflow; `{ type: "EMPTY" }` when nothing does. */
  trigger: Trigger;
}

/** A whole fixtures document, every list present. */
export interface Fixtures {
  /** The projects, which every other entry refers to. */
  projects: ProjectFixture[];
  /** The bearer tokens, in clear. */
  tokens: TokenFixture[];
  /** The calls, with their transcripts. */
  calls: CallFixture[];
  /** The integrations, MCP and HTTP. */
  integrations: IntegrationFixture[];
  /** The workflows. */
  flows: FlowFixture[];
}

/** What {@linkcode parseFixtures} accepts: any list may be left out. */
export type FixturesInput = Partial<Fixtures>;

/**
 * How `seed()` treats what the store holds already. By default a document is
 * the truth for the tokens of the projects it declares (its `projects`
 * list): their tokens that the document does not list are revoked, so a
 * token removed from a fixtures file stops working at the next start.
 * Every other record is added or replaced, never removed.
 *
 * @example Adding one token to a declared project without revoking the others
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashToken, MemoryStore } from "../../mod.ts";
 *
 * const project_id = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
 * const store = new MemoryStore();
 * const projects = [{ project_id, name: "Acme" }];
 * await store.seed({ projects, tokens: [{ token: "a", project_id, role: "owner" }] });
 * await store.seed(
 *   { projects, tokens: [{ token: "b", project_id, role: "viewer" }] },
 *   { keepOtherTokens: true },
 * );
 * assert.ok(await store.findGrant(await hashToken("a")));
 * await store.seed({ projects, tokens: [{ token: "b", project_id, role: "viewer" }] });
 * assert.equal(await store.findGrant(await hashToken("a")), undefined);
 * ```
 */
export interface SeedOptions {
  /**
   * Keep the tokens of the declared projects that the document does not
   * list (an upsert of tokens). Default `false`: they are revoked.
   */
  keepOtherTokens?: boolean;
}

/** Options of {@linkcode parseFixtures}. */
export interface ParseFixturesOptions {
  /** Projects that exist already, so entries may refer to them. */
  knownProjectIds?: Iterable<string>;
}

/**
 * A fixtures document that breaks the format. The message names the path of
 * the first offending value, e.g. `calls[2].project_id`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FixturesError, parseFixtures } from "./fixtures.ts";
 *
 * assert.throws(
 *   () => parseFixtures({ projects: [{ project_id: "nope", name: "Acme" }] }),
 *   (error) =>
 *     error instanceof FixturesError && error.path === "projects[0].project_id",
 * );
 * ```
 */
export class FixturesError extends Error {
  /** Where the problem is, e.g. `tokens[1].role`. */
  readonly path: string;

  /**
   * Creates the error for the value at `path`.
   *
   * @param path Where the problem is.
   * @param problem What is wrong there.
   */
  constructor(path: string, problem: string) {
    super(`Cannot load fixtures: ${path}: ${problem}`);
    this.name = "FixturesError";
    this.path = path;
  }
}

/**
 * An entry's reference to a project that its document does not declare:
 * whether the project exists is for the store being seeded to say.
 */
export interface ProjectReference {
  /** The referring entry, e.g. `tokens[0]`. */
  path: string;
  /** The project's id, lowercase hyphenated. */
  projectId: string;
}

/**
 * A fixtures document checked for its format, with its references to projects
 * it does not declare left open: the canonical fixtures, or the first format
 * problem and the references met before it (which precede it in the order the
 * document is checked, so an unknown one among them is reported first).
 */
export type FixturesCheck =
  | { ok: true; fixtures: Fixtures; references: ProjectReference[] }
  | { ok: false; error: FixturesError; references: ProjectReference[] };

/**
 * The values this module returned as checked, with their open references: a
 * store seeded with one resolves its references and does not parse it again.
 * The contract is that a checked value is not changed afterwards (change a
 * copy, which is checked anew).
 */
const checked = new WeakMap<object, ProjectReference[]>();

/**
 * Records a document as checked without parsing it: for a constant known to
 * be canonical and to declare every project it refers to, such as the
 * built-in demo data (test/fixtures_test.ts parses a copy of it and finds it
 * unchanged). Seeding it then skips the check, whose time-zone and cron
 * validation costs a start more than all the rest of seeding.
 *
 * @param fixtures A canonical, self-contained document, never changed after.
 * @returns The same document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkFixtures, markChecked, parseFixtures } from "./fixtures.ts";
 *
 * const fixtures = markChecked(parseFixtures({}));
 * assert.equal(checkFixtures(fixtures).ok, true);
 * ```
 */
export function markChecked(fixtures: Fixtures): Fixtures {
  checked.set(fixtures, []);
  return fixtures;
}

/**
 * Checks a fixtures document's format in one pass and lists its references to
 * projects it does not declare instead of refusing them, so that a store can
 * look those up ({@linkcode resolveFixtures}). A value that this module
 * returned is not checked again: its check is remembered.
 *
 * @param input The parsed JSON of a fixtures document, or checked fixtures.
 * @returns The canonical fixtures or the first format problem, with the open
 * project references.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkFixtures } from "./fixtures.ts";
 *
 * const check = checkFixtures({
 *   tokens: [{
 *     token: "t",
 *     project_id: "0B6F1C2E-8D3A-4C55-9A57-3E3C2D1F0A11",
 *     role: "owner",
 *   }],
 * });
 * assert.ok(check.ok);
 * assert.deepEqual(check.references, [
 *   { path: "tokens[0]", projectId: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11" },
 * ]);
 * const again = checkFixtures(check.fixtures);
 * assert.ok(again.ok);
 * assert.equal(again.fixtures, check.fixtures); // remembered, not parsed again
 * ```
 */
export function checkFixtures(input: unknown): FixturesCheck {
  const known = typeof input === "object" && input !== null
    ? checked.get(input)
    : undefined;
  if (known !== undefined) {
    return { ok: true, fixtures: input as Fixtures, references: known };
  }
  const references: ProjectReference[] = [];
  try {
    const fixtures = parse(input, references);
    checked.set(fixtures, references);
    return { ok: true, fixtures, references };
  } catch (error) {
    if (error instanceof FixturesError) return { ok: false, error, references };
    throw error;
  }
}

/**
 * The checked fixtures, once the projects they refer to without declaring
 * them are known; otherwise the first problem in the order the document is
 * checked, as {@linkcode parseFixtures} reports it.
 *
 * @param check What {@linkcode checkFixtures} returned.
 * @param isKnownProject Whether a project (lowercase hyphenated id) exists.
 * @returns The canonical fixtures.
 * @throws {FixturesError} naming the first offending path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkFixtures, FixturesError, resolveFixtures } from "./fixtures.ts";
 *
 * const project_id = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
 * const check = checkFixtures({
 *   tokens: [{ token: "t", project_id, role: "owner" }],
 * });
 * assert.equal(resolveFixtures(check, (id) => id === project_id).tokens.length, 1);
 * assert.throws(
 *   () => resolveFixtures(check, () => false),
 *   (error) =>
 *     error instanceof FixturesError && error.path === "tokens[0].project_id",
 * );
 * ```
 */
export function resolveFixtures(
  check: FixturesCheck,
  isKnownProject: (projectId: string) => boolean,
): Fixtures {
  const unknown = check.references.find(({ projectId }) =>
    !isKnownProject(projectId)
  );
  if (unknown !== undefined) {
    throw new FixturesError(
      `${unknown.path}.project_id`,
      `unknown project ${JSON.stringify(unknown.projectId)}`,
    );
  }
  if (!check.ok) throw check.error;
  return check.fixtures;
}

/**
 * Checks a fixtures document and returns it in canonical form: UUIDs
 * lowercase hyphenated, every list present, `created_at` in ISO 8601 UTC.
 * The result is trusted as checked: seeding a store with it does not parse
 * it again, so change a copy of it, not it.
 *
 * @param input The parsed JSON of a fixtures file.
 * @param options Projects that exist already, for adding to a seeded store.
 * @returns The canonical fixtures.
 * @throws {FixturesError} naming the first offending path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseFixtures } from "./fixtures.ts";
 *
 * const fixtures = parseFixtures({
 *   projects: [{ project_id: "0B6F1C2E8D3A4C559A573E3C2D1F0A11", name: "Acme" }],
 * });
 * assert.equal(
 *   fixtures.projects[0]!.project_id,
 *   "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 * );
 * ```
 */
export function parseFixtures(
  input: unknown,
  options: ParseFixturesOptions = {},
): Fixtures {
  const known = new Set(options.knownProjectIds);
  return resolveFixtures(
    checkFixtures(input),
    (projectId) => known.has(projectId),
  );
}

/**
 * The format check proper: throws the first format problem and records each
 * reference to a project the document does not declare.
 */
function parse(input: unknown, references: ProjectReference[]): Fixtures {
  const root = object(input, "fixtures");
  const declaredProjectIds = new Set<string>();
  const projects = list(root, "projects", "").map((item, i) => {
    const path = `projects[${i}]`;
    const entry = object(item, path);
    const project_id = unique(
      uuid(entry, "project_id", path),
      declaredProjectIds,
      path,
    );
    return { project_id, name: text(entry, "name", path) };
  });
  /** An entry's project: one of this document's, or one left open. */
  const projectRef = (entry: JsonObject, path: string): string => {
    const projectId = uuid(entry, "project_id", path);
    if (!declaredProjectIds.has(projectId)) {
      references.push({ path, projectId });
    }
    return projectId;
  };

  const tokenSet = new Set<string>();
  const tokens = list(root, "tokens", "").map((item, i) => {
    const path = `tokens[${i}]`;
    const entry = object(item, path);
    const token = unique(text(entry, "token", path), tokenSet, path, "token");
    return {
      token,
      project_id: projectRef(entry, path),
      role: role(entry, path),
    };
  });

  const callIds = new Set<string>();
  const calls = list(root, "calls", "").map((item, i) => {
    const path = `calls[${i}]`;
    const entry = object(item, path);
    return {
      call_id: unique(uuid(entry, "call_id", path), callIds, path),
      project_id: projectRef(entry, path),
      created_at: timestamp(entry, "created_at", path),
      messages: list(entry, "messages", `${path}.`).map((message, m) =>
        object(message, `${path}.messages[${m}]`)
      ),
    };
  });

  const integrationIds = new Set<string>();
  const toolIds = new Set<string>();
  const integrations = list(root, "integrations", "").map(
    (item, i): IntegrationFixture => {
      const path = `integrations[${i}]`;
      const entry = object(item, path);
      const base = {
        integration_id: unique(
          uuid(entry, "integration_id", path),
          integrationIds,
          path,
        ),
        project_id: projectRef(entry, path),
        name: text(entry, "name", path),
      };
      const kind = entry.kind;
      if (kind === "mcp") {
        return {
          ...base,
          kind,
          cached_tools: list(entry, "cached_tools", `${path}.`).map((tool, t) =>
            object(tool, `${path}.cached_tools[${t}]`)
          ),
        };
      }
      if (kind === "http") {
        return {
          ...base,
          kind,
          tools: list(entry, "tools", `${path}.`).map((tool, t) => {
            const toolPath = `${path}.tools[${t}]`;
            const toolEntry = object(tool, toolPath);
            return {
              tool_id: unique(
                uuid(toolEntry, "tool_id", toolPath),
                toolIds,
                toolPath,
              ),
              name: text(toolEntry, "name", toolPath),
            };
          }),
        };
      }
      throw new FixturesError(
        `${path}.kind`,
        `expected "mcp" or "http", got ${JSON.stringify(kind)}`,
      );
    },
  );

  const flowIds = new Set<string>();
  const flows = list(root, "flows", "").map((item, i) => {
    const path = `flows[${i}]`;
    const entry = object(item, path);
    return {
      flow_id: unique(uuid(entry, "flow_id", path), flowIds, path),
      project_id: projectRef(entry, path),
      name: text(entry, "name", path),
      trigger: trigger(entry.trigger, `${path}.trigger`),
    };
  });

  return { projects, tokens, calls, integrations, flows };
}

/**
 * Checks one trigger object.
 *
 * @param input The candidate trigger.
 * @param path Where it sits, for the error message.
 * @returns The trigger, with only its known fields.
 * @throws {FixturesError} when it is not a valid trigger.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseTrigger } from "./fixtures.ts";
 *
 * assert.deepEqual(
 *   parseTrigger({ type: "schedule", cron: "0 9 * * *", timezone: "UTC" }, "trigger"),
 *   { type: "schedule", cron: "0 9 * * *", timezone: "UTC" },
 * );
 * ```
 */
export function parseTrigger(input: unknown, path: string): Trigger {
  return trigger(input, path);
}

function trigger(input: unknown, path: string): Trigger {
  const entry = object(input, path);
  switch (entry.type) {
    case "EMPTY":
    case "call_ended":
      return { type: entry.type };
    case "webhook":
      return {
        type: "webhook",
        sample_payload: object(entry.sample_payload, `${path}.sample_payload`),
      };
    case "schedule": {
      const cron = text(entry, "cron", path);
      const timezone = text(entry, "timezone", path);
      const invalid = scheduleProblem(cron, timezone);
      if (invalid !== undefined) {
        throw new FixturesError(`${path}.${invalid.field}`, invalid.problem);
      }
      return { type: "schedule", cron, timezone };
    }
    default:
      throw new FixturesError(
        `${path}.type`,
        `expected "EMPTY", "webhook", "call_ended" or "schedule", got ${
          JSON.stringify(entry.type)
        }`,
      );
  }
}

type JsonObject = Record<string, unknown>;

function object(value: unknown, path: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FixturesError(path, "expected a JSON object");
  }
  return value as JsonObject;
}

/** An optional list field; `prefix` is the parent's path with its dot. */
function list(entry: JsonObject, key: string, prefix: string): unknown[] {
  const value = entry[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new FixturesError(`${prefix}${key}`, "expected an array");
  }
  return value;
}

function text(entry: JsonObject, key: string, path: string): string {
  const value = entry[key];
  if (typeof value !== "string" || value === "") {
    throw new FixturesError(`${path}.${key}`, "expected a non-empty string");
  }
  return value;
}

function uuid(entry: JsonObject, key: string, path: string): string {
  const value = entry[key];
  const parsed = typeof value === "string" ? parseUuid(value) : undefined;
  if (!parsed?.ok) {
    throw new FixturesError(
      `${path}.${key}`,
      `expected a UUID, got ${JSON.stringify(value)}`,
    );
  }
  return parsed.uuid;
}

function unique(
  value: string,
  seen: Set<string>,
  path: string,
  what = "id",
): string {
  if (seen.has(value)) {
    throw new FixturesError(path, `duplicate ${what} ${JSON.stringify(value)}`);
  }
  seen.add(value);
  return value;
}

function role(entry: JsonObject, path: string): Role {
  const value = entry.role;
  if (!ROLES.includes(value as Role)) {
    throw new FixturesError(
      `${path}.role`,
      `expected one of ${ROLES.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  return value as Role;
}

/** A date-time with an offset of at most ±23:59, as RFC 3339 allows. */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

function timestamp(entry: JsonObject, key: string, path: string): string {
  const value = entry[key];
  const match = typeof value === "string" ? ISO_8601.exec(value) : null;
  const time = match === null ? NaN : Date.parse(value as string);
  if (match === null || !isCalendarDate(match) || Number.isNaN(time)) {
    throw new FixturesError(
      `${path}.${key}`,
      `expected an ISO 8601 date-time with offset, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return new Date(time).toISOString();
}

/** Whether year, month and day name a real day (no February 30th). */
function isCalendarDate(match: RegExpExecArray): boolean {
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
