/**
 * The standalone mock server's control API, under the reserved `/__mock/`
 * prefix: reset, fixtures, state, request journal, faults, and its own
 * OpenAPI document.
 *
 * @module
 */
import { FixturesError, type FixturesInput } from "../src/store/mod.ts";
import { HttpError } from "../src/http/mod.ts";
import { PRIVATE_HEADERS } from "../src/http/mod.ts";
import { type FaultRule, FaultRuleError } from "./faults.ts";
import { CONTROL_PREFIX, isControlPath } from "./guard.ts";
import { readBody } from "../src/http/mod.ts";
import { type Route, Router } from "../src/http/mod.ts";
import type { MockContext, MockStep } from "./mock_context.ts";
import type { MockState } from "./mock_state.ts";
import { PAGE_FILES, PAGE_POLICY } from "./page.ts";

export { CONTROL_PREFIX } from "./guard.ts";

/** Options of {@linkcode controlApi}. */
export interface ControlApiOptions {
  /** The largest `PUT /__mock/fixtures` body, in bytes. Default 10 MiB. */
  fixturesLimit?: number;
  /**
   * Serve the live page at `GET /__mock/` (with its `ui.css` and `ui.js`).
   * Default: false here; `createMockServer` serves it unless told not to.
   */
  ui?: boolean;
}

/** Default of {@linkcode ControlApiOptions.fixturesLimit}: 10 MiB. */
export const DEFAULT_FIXTURES_LIMIT = 10 * 1024 * 1024;
/** The deepest nesting of arrays and objects a fixtures document may have. */
export const MAX_FIXTURES_DEPTH = 100;
const FAULT_LIMIT = 64 * 1024;

/**
 * The step that answers the control API; every other request goes on to the
 * mocked API:
 *
 * - `POST /__mock/reset`: back to the fixtures, journal and faults cleared; 204.
 * - `PUT /__mock/fixtures` with a fixtures document: replaces the whole state,
 *   and what a reset goes back to; 204. A document that breaks the format (or
 *   nests deeper than {@linkcode MAX_FIXTURES_DEPTH}) changes nothing and gets
 *   400 `INVALID_FIXTURES`; one over the size limit 413 `PAYLOAD_TOO_LARGE`.
 * - `GET /__mock/state`: the current state as a fixtures document.
 * - `GET /__mock/requests` (`{"requests": [...]}`, oldest first), `DELETE`.
 * - `GET /__mock/faults` (`{"faults": [...]}`), `POST` a rule (201),
 *   `DELETE` all, `DELETE /__mock/faults/{id}` one.
 * - `GET /__mock/journal.har` (`?after=<seq>`: only the requests numbered
 *   above it; `?limit=<n>`: at most that many): the journal as a HAR 1.2
 *   document (see `journalHar`).
 * - `GET /__mock/rows` (`?after=<seq>`): the journal as the live page's
 *   table shows it (see `journalRows`).
 * - `GET /__mock/openapi.json`: this API's OpenAPI document.
 * - With `ui`: `GET /__mock/` the live page, `/__mock/ui.css`, `/__mock/ui.js`.
 *
 * Bodies must be `application/json` (415 otherwise). An unknown `/__mock/`
 * path is 404 `NOT_FOUND`, a wrong method 405 `METHOD_NOT_ALLOWED`.
 *
 * @param state The mock's state.
 * @param options The fixtures size limit.
 * @returns The step.
 *
 * @example Resetting the mock between tests
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { controlApi } from "./control_api.ts";
 * import { createMockState } from "./mock_state.ts";
 *
 * const control = controlApi(createMockState());
 * const context = new Context(
 *   new Request("http://127.0.0.1:4010/__mock/reset", { method: "POST" }),
 * );
 * const response = await control(context, () => Promise.reject());
 * assert.equal(response.status, 204);
 * ```
 */
export function controlApi(
  state: MockState,
  options: ControlApiOptions = {},
): MockStep {
  const routes = new Router(
    [
      ...controlRoutes(state, options.fixturesLimit ?? DEFAULT_FIXTURES_LIMIT),
      ...(options.ui ? pageRoutes() : []),
    ],
    {
      notFoundMessage: (pathname) =>
        `No control route ${pathname}: see GET /__mock/openapi.json`,
    },
  );
  const control = async (context: MockContext) => {
    // The state holds tokens: nothing the control API answers may be stored.
    context.headers = { ...PRIVATE_HEADERS, ...context.headers };
    const { request, pathname } = context;
    const { target, params } = routes.match(request.method, pathname);
    return await target(context, params);
  };
  return (context, next) => {
    if (!isControlPath(context.pathname)) return next();
    // A GET route answers HEAD too: the GET's status and headers, no body.
    return context.request.method === "HEAD"
      ? control(context).then((response) => context.withoutBody(response))
      : control(context);
  };
}

/** What a control route does with its request and path params. */
type ControlRoute = (
  context: MockContext,
  params: Readonly<Record<string, string>>,
) => Response | Promise<Response>;

/** The control API's routes; a 405's `Allow` lists methods in this order. */
function controlRoutes(
  state: MockState,
  fixturesLimit: number,
): Route<ControlRoute>[] {
  const route = (method: string, path: string, target: ControlRoute) => ({
    method,
    pattern: `${CONTROL_PREFIX}${path}`,
    target,
  });
  return [
    route("POST", "reset", async (context) => {
      await readJson(context.request, 1024, "BAD_REQUEST");
      await state.reset();
      return context.empty(204);
    }),
    route("PUT", "fixtures", async (context) => {
      const document = await readJson(
        context.request,
        fixturesLimit,
        "INVALID_FIXTURES",
      );
      try {
        await state.replaceFixtures(document as FixturesInput);
      } catch (error) {
        if (!(error instanceof FixturesError)) throw error;
        throw new HttpError(400, "INVALID_FIXTURES", error.message);
      }
      return context.empty(204);
    }),
    route(
      "GET",
      "state",
      async (context) => context.json(await state.snapshot()),
    ),
    route(
      "GET",
      "requests",
      (context) => context.json({ requests: state.requests }),
    ),
    route("DELETE", "requests", (context) => {
      state.clearRequests();
      return context.empty(204);
    }),
    route(
      "GET",
      "faults",
      (context) => context.json({ faults: state.faults }),
    ),
    route("POST", "faults", async (context) => {
      const rule = await readJson(
        context.request,
        FAULT_LIMIT,
        "INVALID_FAULT",
      );
      try {
        return context.json(state.inject(rule as FaultRule), 201);
      } catch (error) {
        if (!(error instanceof FaultRuleError)) throw error;
        throw new HttpError(400, "INVALID_FAULT", error.message);
      }
    }),
    route("DELETE", "faults", (context) => {
      state.clearFaults();
      return context.empty(204);
    }),
    route("GET", "journal.har", async (context) => {
      const query = new URL(context.request.url).searchParams;
      return context.json(
        await state.har(
          count(query, "after") ?? 0,
          count(query, "limit") ?? Infinity,
        ),
      );
    }),
    route("GET", "rows", (context) => {
      const query = new URL(context.request.url).searchParams;
      return context.json(state.rows(count(query, "after") ?? 0));
    }),
    // Loaded at the first ask, not at start (0.3 ms of CPU on Bun).
    route("GET", "openapi.json", async (context) => {
      const { controlOpenApiDocument } = await import("./control_openapi.ts");
      return context.json(controlOpenApiDocument);
    }),
    route("DELETE", "faults/{id}", (context, { id }) => {
      if (!state.clearFaults(id!)) {
        throw new HttpError(404, "FAULT_NOT_FOUND", `No fault ${id}`);
      }
      return context.empty(204);
    }),
  ];
}

/**
 * A query parameter that counts (`after`, `limit`): a whole number, or
 * 400 `BAD_REQUEST`; `undefined` when not given.
 */
function count(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^\d{1,15}$/.test(value)) {
    throw new HttpError(
      400,
      "BAD_REQUEST",
      `${name} must be a whole number (a request's number is a HAR entry's _seq), e.g. ${name}=0`,
    );
  }
  return Number(value);
}

/** The live page's files (see `page.ts`). */
function pageRoutes(): Route<ControlRoute>[] {
  return Object.entries(PAGE_FILES).map(([path, { type, text }]) => ({
    method: "GET",
    pattern: `${CONTROL_PREFIX}${path}`,
    target: (context: MockContext) =>
      context.body(text, {
        "content-type": type,
        "content-security-policy": PAGE_POLICY,
        "x-frame-options": "DENY",
        "referrer-policy": "no-referrer",
      }),
  }));
}

const decoder = new TextDecoder();

/**
 * The request's JSON body, read up to `limit` bytes. A body must come with
 * `Content-Type: application/json` (415 otherwise), so that a web page cannot
 * send one without a CORS preflight; larger than `limit` is 413; not JSON,
 * or nested deeper than {@linkcode MAX_FIXTURES_DEPTH}, is 400 `errorCode`.
 * No body at all is `undefined`.
 */
async function readJson(
  request: Request,
  limit: number,
  errorCode: string,
): Promise<unknown> {
  const type = request.headers.get("content-type");
  const media = type === null
    ? undefined
    : type.split(";")[0]!.trim().toLowerCase();
  const unsupported = () =>
    new HttpError(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      "Control API bodies must be sent with Content-Type: application/json",
    );
  if (type !== null && media !== "application/json") throw unsupported();
  const text = decoder.decode(
    await readBody(request, {
      limit,
      tooLargeMessage: `The body is over the limit of ${limit} bytes`,
    }),
  );
  if (text === "") return undefined;
  if (type === null) throw unsupported();
  const depth = nestingDepth(text);
  if (depth > MAX_FIXTURES_DEPTH) {
    throw new HttpError(
      400,
      errorCode,
      `The body nests arrays and objects ${depth} deep; at most ${MAX_FIXTURES_DEPTH} levels are accepted`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(
      400,
      errorCode,
      `The body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

/**
 * How deep arrays and objects nest in a JSON text (brackets inside strings
 * not counted), in one linear pass.
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}
