/**
 * The standalone mock server's control API, under the reserved `/__mock/`
 * prefix: `POST /__mock/reset` and `PUT /__mock/fixtures`.
 *
 * @module
 */
import { FixturesError, type FixturesInput } from "../src/fixtures.ts";
import type { Handler } from "../src/handler.ts";
import { HttpError } from "../src/http_error.ts";
import { pathnameOf } from "../src/router.ts";
import type { MockState } from "./mock_state.ts";

/** The path prefix reserved for the control API. */
export const CONTROL_PREFIX = "/__mock/";

/**
 * A handler that answers the control API and passes every other request to
 * the state's API handler:
 *
 * - `POST /__mock/reset`: back to the fixtures; 204.
 * - `PUT /__mock/fixtures` with a fixtures document: replaces the whole state,
 *   and what a reset goes back to; 204. A document that breaks the format
 *   changes nothing and gets 400 `INVALID_FIXTURES` naming the offending path.
 *
 * The control API needs no token. An unknown `/__mock/` path is 404
 * `NOT_FOUND`, a wrong method 405 `METHOD_NOT_ALLOWED` with `Allow`.
 *
 * @param state The mock's state.
 * @returns The handler.
 *
 * @example Resetting the mock between tests
 * ```ts
 * import { withControlApi } from "./control_api.ts";
 * import { createMockState } from "./mock_state.ts";
 *
 * const handler = withControlApi(createMockState());
 * const response = await handler(
 *   new Request("http://127.0.0.1:4010/__mock/reset", { method: "POST" }),
 * );
 * console.log(response.status); // 204
 * ```
 */
export function withControlApi(state: MockState): Handler {
  return async (request) => {
    const pathname = pathnameOf(request.url);
    if (!pathname.startsWith(CONTROL_PREFIX)) return state.handler(request);
    try {
      return await control(state, request, pathname);
    } catch (error) {
      if (error instanceof HttpError) return error.toResponse();
      throw error;
    }
  };
}

async function control(
  state: MockState,
  request: Request,
  pathname: string,
): Promise<Response> {
  switch (pathname) {
    case "/__mock/reset":
      allow(request, "POST");
      await state.reset();
      return new Response(null, { status: 204 });
    case "/__mock/fixtures":
      allow(request, "PUT");
      try {
        await state.replaceFixtures(
          await fixturesBody(request) as FixturesInput,
        );
      } catch (error) {
        if (!(error instanceof FixturesError)) throw error;
        throw new HttpError(400, "INVALID_FIXTURES", error.message);
      }
      return new Response(null, { status: 204 });
    default:
      throw new HttpError(
        404,
        "NOT_FOUND",
        `No control route ${pathname}: use POST /__mock/reset or PUT /__mock/fixtures`,
      );
  }
}

function allow(request: Request, method: string): void {
  if (request.method !== method) {
    throw new HttpError(
      405,
      "METHOD_NOT_ALLOWED",
      `Method ${request.method} is not allowed on ${
        new URL(request.url).pathname
      }`,
      { headers: { allow: method } },
    );
  }
}

/** The request's fixtures document, or 400 when it is not a valid one. */
async function fixturesBody(request: Request): Promise<unknown> {
  try {
    return JSON.parse(await request.text());
  } catch (error) {
    throw new HttpError(
      400,
      "INVALID_FIXTURES",
      `Cannot load fixtures: the body is not valid JSON: ${
        (error as Error).message
      }`,
    );
  }
}
