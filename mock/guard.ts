/**
 * What keeps a mock safe from the web pages a browser opens, wherever it
 * listens: the `Host` must be a name the mock answers to (against DNS
 * rebinding; on the control API always, even when the mock is bound to
 * every interface), and the control API refuses foreign origins.
 *
 * @module
 */
import { HttpError } from "../src/http/mod.ts";
import type { MockStep } from "./mock_context.ts";

/** The path prefix reserved for the control API. */
export const CONTROL_PREFIX = "/__mock/";

/**
 * Whether a path is the control API's (under {@linkcode CONTROL_PREFIX}),
 * not the mocked API's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isControlPath } from "./guard.ts";
 *
 * assert.equal(isControlPath("/__mock/reset"), true);
 * assert.equal(isControlPath("/v1/call/1/message"), false);
 * ```
 */
export function isControlPath(pathname: string): boolean {
  return pathname.startsWith(CONTROL_PREFIX);
}

/** Options of {@linkcode guardHosts}. */
export interface GuardOptions {
  /**
   * Host names (no port) the mock answers to beside the loopback names: the
   * address it is bound to, and the names it is reached by (a container's
   * service name, e.g. `mock`; the `mock` command's `--allowed-host`). The
   * control API answers these and loopback names only, whatever the mock is
   * bound to. Default: none.
   */
  allowedHosts?: readonly string[];
  /**
   * Let the mocked API (never the control API) answer any `Host`, for a mock
   * bound to a non-loopback address on purpose (the `mock` command's
   * `--host`). Default: loopback names and `allowedHosts` only.
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
  const name = hostName(host);
  if (name === undefined) return false;
  return name === "localhost" || name.endsWith(".localhost") ||
    name === "[::1]" || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * The name of a `Host` value, lowercase, without its port or final dot
 * (`[::1]` keeps its brackets); `undefined` when it is no host.
 */
function hostName(host: string): string | undefined {
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d{1,5})?$/.exec(host.trim());
  return match?.[1]?.toLowerCase().replace(/\.$/, "");
}

/**
 * Whether a `Host` value is one the mock answers to: a loopback name (see
 * {@linkcode isLoopbackHost}) or one of `allowedHosts`, with or without a
 * port.
 *
 * @param host The `Host` header's value.
 * @param allowedHosts Names allowed beside the loopback ones.
 * @returns Whether it is allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAllowedHost } from "./guard.ts";
 *
 * assert.ok(isAllowedHost("mock:4010", ["mock"]));
 * assert.ok(isAllowedHost("localhost:4010", []));
 * assert.ok(!isAllowedHost("evil.example:4010", ["mock"]));
 * ```
 */
export function isAllowedHost(
  host: string,
  allowedHosts: readonly string[] = [],
): boolean {
  if (isLoopbackHost(host)) return true;
  const name = hostName(host);
  return name !== undefined && name !== "" &&
    allowedHosts.some((allowed) => hostName(allowed) === name);
}

/**
 * Whether an `Origin` may use the control API: a page served from a name the
 * mock answers to (see {@linkcode isAllowedHost}: a loopback name or one of
 * `allowedHosts`, any port, `http` or `https`), which includes the mock's
 * own origin. `null` (sandboxed frames, `file:` pages) and every other site
 * are foreign: the request's own URL is not trusted, since under DNS
 * rebinding a foreign page's origin is the URL it sends to.
 *
 * @param origin The `Origin` header's value.
 * @param allowedHosts Names allowed beside the loopback ones.
 * @returns Whether the origin is allowed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isAllowedOrigin } from "./guard.ts";
 *
 * assert.ok(isAllowedOrigin("http://localhost:5173"));
 * assert.ok(isAllowedOrigin("http://mock:4010", ["mock"]));
 * assert.ok(!isAllowedOrigin("http://evil.example"));
 * assert.ok(!isAllowedOrigin("null"));
 * ```
 */
export function isAllowedOrigin(
  origin: string,
  allowedHosts: readonly string[] = [],
): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.origin === "null" || parsed.origin !== origin) return false;
  return (parsed.protocol === "http:" || parsed.protocol === "https:") &&
    isAllowedHost(parsed.host, allowedHosts);
}

/**
 * The standalone mock's first step, against DNS rebinding and foreign
 * pages. A `Host` the mock does not answer to (see {@linkcode isAllowedHost})
 * gets 403 `INVALID_HOST`: always on the control API, and on the mocked API
 * too unless `allowAnyHost`. A `/__mock/` request (preflight included) from
 * a foreign `Origin` (see {@linkcode isAllowedOrigin}) gets 403
 * `FORBIDDEN_ORIGIN` with no CORS headers, so the page cannot even read the
 * refusal. Every refusal carries `X-Content-Type-Options: nosniff`.
 *
 * @param options The names answered beside the loopback ones, and whether
 * the mocked API answers any `Host`.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { guardHosts } from "./guard.ts";
 *
 * const guard = guardHosts({ allowAnyHost: true });
 * const answer = (url: string, method = "GET") => {
 *   const context = new Context(new Request(url, { method }));
 *   return guard(context, () => Promise.resolve(context.empty(204)));
 * };
 * await assert.rejects(
 *   answer("http://evil.example:4010/__mock/reset", "POST"),
 *   { status: 403, errorCode: "INVALID_HOST" },
 * );
 * assert.equal((await answer("http://evil.example:4010/healthz")).status, 204);
 * ```
 */
export function guardHosts(options: GuardOptions = {}): MockStep {
  const { allowedHosts = [], allowAnyHost = false } = options;
  // The last Host found allowed: clients send the same one.
  let allowedHost: string | undefined;
  return async (context, next) => {
    const { request } = context;
    const host = request.headers.get("host") ?? new URL(request.url).host;
    const control = isControlPath(context.pathname);
    if (host === allowedHost || isAllowedHost(host, allowedHosts)) {
      allowedHost = host;
    } else if (control || !allowAnyHost) {
      throw new HttpError(
        403,
        "INVALID_HOST",
        `Host "${host}" is not a name this mock answers to: use localhost, 127.0.0.1 or [::1], or start the mock with --allowed-host <name>`,
      );
    }
    const origin = request.headers.get("origin");
    if (
      origin !== null && control && !isAllowedOrigin(origin, allowedHosts)
    ) {
      throw new HttpError(
        403,
        "FORBIDDEN_ORIGIN",
        `The control API refuses requests from origin ${origin}: only pages on localhost or on a name given with --allowed-host may use it`,
      );
    }
    return await next();
  };
}
