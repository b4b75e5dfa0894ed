/**
 * What keeps a mock on a developer's laptop safe from the web pages its
 * browser opens: the `Host` must be a loopback name (against DNS
 * rebinding), and the control API refuses foreign origins.
 *
 * @module
 */
import type { Handler } from "../src/handler.ts";
import { HttpError } from "../src/http_error.ts";
import { answerErrors } from "./answer_errors.ts";
import { pathnameOf } from "../src/router.ts";

/** The path prefix reserved for the control API. */
export const CONTROL_PREFIX = "/__mock/";

/**
 * Whether a request is for the control API (its path under
 * {@linkcode CONTROL_PREFIX}), not for the mocked API.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isControlRequest } from "./guard.ts";
 *
 * assert.equal(isControlRequest(new Request("http://x/__mock/reset")), true);
 * assert.equal(isControlRequest(new Request("http://x/v1/call/1/message")), false);
 * ```
 */
export function isControlRequest(request: Request): boolean {
  return pathnameOf(request.url).startsWith(CONTROL_PREFIX);
}

/** Options of {@linkcode withGuard}. */
export interface GuardOptions {
  /**
   * Accept any `Host`, for a mock bound to a non-loopback address on purpose
   * (the `mock` command's `--host`). Default: loopback names only.
   */
  allowAnyHost?: boolean;
}

/**
 * Whether a `Host` value names the local machine: `localhost` or a name
 * under `.localhost`, an address in 127.0.0.0/8, or `[::1]`, with or without
 * a port.
 *
 * @param host The `Host` header's value.
 * @returns Whether it is a loopback name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLoopbackHost } from "./guard.ts";
 *
 * assert.ok(isLoopbackHost("localhost:4010"));
 * assert.ok(isLoopbackHost("[::1]:4010"));
 * assert.ok(!isLoopbackHost("evil.example:4010"));
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d{1,5})?$/.exec(host.trim());
  if (match === null) return false;
  const name = match[1]!.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") ||
    name === "[::1]" || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Whether an `Origin` may use the control API: the mock's own origin, or a
 * page served from the local machine (any port, `http` or `https`). `null`
 * (sandboxed frames, `file:` pages) and every other site are foreign.
 *
 * @param origin The `Origin` header's value.
 * @param requestUrl The request's URL (its origin is the mock's).
 * @returns Whether the origin is allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAllowedOrigin } from "./guard.ts";
 *
 * const url = new URL("http://127.0.0.1:4010/__mock/reset");
 * assert.ok(isAllowedOrigin("http://localhost:5173", url));
 * assert.ok(!isAllowedOrigin("http://evil.example", url));
 * assert.ok(!isAllowedOrigin("null", url));
 * ```
 */
export function isAllowedOrigin(origin: string, requestUrl: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.origin === "null" || parsed.origin !== origin) return false;
  if (parsed.origin === requestUrl.origin) return true;
  return (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    isLoopbackHost(parsed.host);
}

/**
 * Wraps the standalone mock's handler: a `Host` that is not a loopback name
 * gets 403 `INVALID_HOST` (unless `allowAnyHost`), and a `/__mock/` request
 * (preflight included) from a foreign `Origin` gets 403 `FORBIDDEN_ORIGIN`
 * with no CORS headers, so the page cannot even read the refusal.
 *
 * @param handler The handler to guard.
 * @param options Whether any `Host` is accepted.
 * @returns The guarded handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withGuard } from "./guard.ts";
 *
 * const handler = withGuard(() => Promise.resolve(new Response(null, { status: 204 })));
 * const response = await handler(
 *   new Request("http://127.0.0.1:4010/__mock/reset", {
 *     method: "POST",
 *     headers: { origin: "http://evil.example" },
 *   }),
 * );
 * assert.equal(response.status, 403);
 * ```
 */
export function withGuard(
  handler: Handler,
  options: GuardOptions = {},
): Handler {
  // The last Host found to be a loopback name: clients send the same one.
  let loopbackHost: string | undefined;
  return answerErrors((request) => {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    if (
      !options.allowAnyHost && host !== loopbackHost && !isLoopbackHost(host)
    ) {
      throw new HttpError(
        403,
        "INVALID_HOST",
        `Host "${host}" is not a loopback name: use localhost, 127.0.0.1 or [::1], or start the mock with --host to serve other names`,
      );
    }
    loopbackHost = host;
    const origin = request.headers.get("origin");
    if (
      origin !== null && isControlRequest(request) &&
      !isAllowedOrigin(origin, new URL(request.url))
    ) {
      throw new HttpError(
        403,
        "FORBIDDEN_ORIGIN",
        `The control API refuses requests from origin ${origin}: only the mock's own origin and pages on localhost may use it`,
      );
    }
    return handler(request);
  });
}
