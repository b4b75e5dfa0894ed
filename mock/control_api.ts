/**
 * The standalone mock server's control API, under the reserved `/__mock/`
 * prefix: reset, fixtures, state, request journal, faults, and its own
 * OpenAPI document.
 *
 * @module
 */
import { FixturesError, type FixturesInput } from "../src/store/fixtures.ts";
import type { Handler } from "../src/handler.ts";
import { HttpError } from "../src/http/http_error.ts";
import { PRIVATE_HEADERS } from "../src/http/hardening_headers.ts";
import { controlOpenApiDocument } from "./control_openapi.ts";
import { type FaultRule, FaultRuleError } from "./faults.ts";
import { CONTROL_PREFIX, isControlRequest } from "./guard.ts";
import { readBody } from "../src/http/request_body.ts";
import { withoutBody } from "../src/http/responses.ts";
import { pathnameOf, type Route, Router } from "../src/http/router.ts";
import { answerErrors } from "./answer_errors.ts";
import type { MockState } from "./mock_state.ts";

export { CONTROL_PREFIX } from "./guard.ts";

/** Options of {@linkcode withControlApi}. */
export interface ControlApiOptions {
  /** The largest `PUT /__mock/fixtures` body, in bytes. Default 10 MiB. */
  fixturesLimit?: number;
}

/** Default of {@linkcode ControlApiOptions.fixturesLimit}: 10 MiB. */
export const DEFAULT_FIXTURES_LIMIT = 10 * 1024 * 1024;
/** The deepest nesting of arrays and objects a fixtures document may have. */
export const MAX_FIXTURES_DEPTH = 100;
const FAULT_LIMIT = 64 * 1024;

/**
 * A handler that answers the control API and passes every other request to
 * the state's API handler:
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
 * - `GET /__mock/openapi.json`: this API's OpenAPI document.
 *
 * Bodies must be `application/json` (415 otherwise). An unknown `/__mock/`
 * path is 404 `NOT_FOUND`, a wrong method 405 `METHOD_NOT_ALLOWED`.
 *
 * @param state The mock's state.
 * @param options The fixtures size limit.
 * @returns The handler.
 *
 * @example Resetting the mock between tests
 * ```ts
 * import assert from "node:assert/strict";
 * import { withControlApi } from "./control_api.ts";
 * import { createMockState } from "./mock_state.ts";
 *
 * const handler = withControlApi(createMockState());
 * const response = await handler(
 *   new Request("http://127.0.0.1:4010/__mock/reset", { method: "POST" }),
 * );
 * assert.equal(response.status, 204);
 * ```
 */
export function withControlApi(
  state: MockState,
  options: ControlApiOptions = {},
): Handler {
  const routes = new Router(
    controlRoutes(state, options.fixturesLimit ?? DEFAULT_FIXTURES_LIMIT),
    {
      notFoundMessage: (pathname) =>
        `No control route ${pathname}: see GET /__mock/openapi.json`,
    },
  );
  const control = answerErrors(async (request) => {
    const { target, params } = routes.match(
      request.method,
      pathnameOf(request.url),
    );
    return await target(request, params);
  }, PRIVATE_HEADERS);
  return (request) => {
    if (!isControlRequest(request)) return state.handler(request);
    // A GET route answers HEAD too: the GET's status and headers, no body.
    return request.method === "HEAD"
      ? control(request).then(withoutBody)
      : control(request);
  };
}

/** What a control route does with its request and path params. */
type ControlRoute = (
  request: Request,
  params: Record<string, string>,
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
  // The state holds tokens: nothing the control API answers may be stored.
  const headers = PRIVATE_HEADERS;
  const noContent = () => new Response(null, { status: 204, headers });
  return [
    route("POST", "reset", async (request) => {
      await readJson(request, 1024, "BAD_REQUEST");
      await state.reset();
      return noContent();
    }),
    route("PUT", "fixtures", async (request) => {
      const document = await readJson(
        request,
        fixturesLimit,
        "INVALID_FIXTURES",
      );
      try {
        await state.replaceFixtures(document as FixturesInput);
      } catch (error) {
        if (!(error instanceof FixturesError)) throw error;
        throw new HttpError(400, "INVALID_FIXTURES", error.message);
      }
      return noContent();
    }),
    route(
      "GET",
      "state",
      async () => Response.json(await state.snapshot(), { headers }),
    ),
    route(
      "GET",
      "requests",
      () => Response.json({ requests: state.requests }, { headers }),
    ),
    route("DELETE", "requests", () => {
      state.clearRequests();
      return noContent();
    }),
    route(
      "GET",
      "faults",
      () => Response.json({ faults: state.faults }, { headers }),
    ),
    route("POST", "faults", async (request) => {
      const rule = await readJson(request, FAULT_LIMIT, "INVALID_FAULT");
      try {
        return Response.json(state.inject(rule as FaultRule), {
          status: 201,
          headers,
        });
      } catch (error) {
        if (!(error instanceof FaultRuleError)) throw error;
        throw new HttpError(400, "INVALID_FAULT", error.message);
      }
    }),
    route("DELETE", "faults", () => {
      state.clearFaults();
      return noContent();
    }),
    route(
      "GET",
      "openapi.json",
      () => Response.json(controlOpenApiDocument, { headers }),
    ),
    route("DELETE", "faults/{id}", (_, { id }) => {
      if (!state.clearFaults(id)) {
        throw new HttpError(404, "FAULT_NOT_FOUND", `No fault ${id}`);
      }
      return noContent();
    }),
  ];
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
