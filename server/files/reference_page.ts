/**
 * `GET /docs`: the API's reference, rendered in the browser from the served
 * `/openapi.json` by Swagger UI, whose script and stylesheet come from the
 * installed `swagger-ui-dist` package (an optional dependency) and are
 * served from `/docs/` too: the page asks no other host. Kept out of the
 * core handler: the servers add it as a step of their pipeline.
 *
 * @module
 */
import {
  type Context,
  HttpError,
  type Middleware,
  passThrough,
} from "../../src/http/mod.ts";

/** Where the reference page lives. */
export const DOCS_PATH = "/docs";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Call, Integration and Workflow API: reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

/**
 * Renders the served document; no validator badge (it would call another
 * host), the examples shown, the models' schemas one level open.
 */
const INIT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  defaultModelsExpandDepth: 1,
  tryItOutEnabled: false,
});
`;

/** A file of the page: its type, and its text or the asset it is. */
interface PageFile {
  type: string;
  text?: string;
  asset?: string;
}

/** The page's files, by path, with their content type. */
const FILES: Record<string, PageFile> = {
  [DOCS_PATH]: { type: "text/html; charset=utf-8", text: PAGE },
  [`${DOCS_PATH}/init.js`]: { type: "text/javascript", text: INIT },
  [`${DOCS_PATH}/swagger-ui.css`]: {
    type: "text/css",
    asset: "swagger-ui.css",
  },
  [`${DOCS_PATH}/swagger-ui-bundle.js`]: {
    type: "text/javascript",
    asset: "swagger-ui-bundle.js",
  },
};

/** Reads a file of the `swagger-ui-dist` package; rejects when it is absent. */
export type AssetReader = (name: string) => Promise<Uint8Array>;

/**
 * Reads `swagger-ui-dist`'s files where Node's resolution finds the package
 * (the project's or the consumer's `node_modules`), or else beside the
 * running module (where `bun build --compile --asset` puts them in the
 * mock's executable).
 */
export const readSwaggerUiAsset: AssetReader = async (name) => {
  // Loaded at the first read, not at start: on Bun, 2 to 4 ms of CPU.
  const [{ readFile }, { createRequire }, { join }] = await Promise.all([
    import("node:fs/promises"),
    import("node:module"),
    import("node:path"),
  ]);
  let path: string;
  try {
    path = createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`);
  } catch {
    path = join(import.meta.dirname ?? ".", name);
  }
  return new Uint8Array(await readFile(path));
};

/**
 * The pipeline step serving the reference page: `GET` and `HEAD` of `/docs`
 * and its files; every other request goes on. When `swagger-ui-dist` is not
 * installed, the page's script and stylesheet answer 404 `NOT_FOUND` saying
 * so. Its answers are built by the context, so the access log counts their
 * bytes. The servers of `npm start`, `callflow-api serve`, the `./server`
 * entry and `mock` add it when `DOCS` is on.
 *
 * @param readAsset Where the package's files are read. Default:
 * {@linkcode readSwaggerUiAsset}.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler, MemoryStore } from "../../mod.ts";
 * import { referencePage } from "./reference_page.ts";
 *
 * const handler = createHandler({
 *   store: new MemoryStore(),
 *   middleware: [referencePage()],
 * });
 * const page = await handler(new Request("http://127.0.0.1:8787/docs"));
 * assert.equal(page.status, 200);
 * assert.match(await page.text(), /swagger-ui-bundle\.js/);
 * const head = await handler(
 *   new Request("http://127.0.0.1:8787/docs/init.js", { method: "HEAD" }),
 * );
 * assert.ok(Number(head.headers.get("content-length")) > 0);
 * assert.equal(head.body, null);
 * const api = await handler(new Request("http://127.0.0.1:8787/healthz"));
 * assert.deepEqual(await api.json(), { status: "ok" });
 * ```
 */
export function referencePage(
  readAsset: AssetReader = readSwaggerUiAsset,
): Middleware {
  const assets = new Map<string, Promise<Uint8Array>>();
  const serveFile = async (context: Context, file: PageFile) => {
    let body: Uint8Array | string;
    if (file.asset === undefined) {
      body = file.text!;
    } else {
      let asset = assets.get(file.asset);
      if (asset === undefined) {
        asset = readAsset(file.asset);
        assets.set(file.asset, asset);
        // Not installed: say so each time, and try again next time.
        asset.catch(() => assets.delete(file.asset!));
      }
      try {
        body = await asset;
      } catch {
        throw new HttpError(
          404,
          "NOT_FOUND",
          "The reference page needs the optional package swagger-ui-dist: install it",
        );
      }
    }
    const page = context.body(body, {
      "content-type": file.type,
      "cache-control": "no-cache",
    });
    return context.request.method === "HEAD" ? context.withoutBody(page) : page;
  };
  // Not async: a request for anything else passes on without a promise of
  // its own.
  return passThrough((context, next) => {
    // Only a GET or HEAD may be for a file.
    const { method } = context.request;
    if (method !== "GET" && method !== "HEAD") return next();
    const { pathname } = context;
    const file = Object.hasOwn(FILES, pathname) ? FILES[pathname] : undefined;
    return file === undefined ? next() : serveFile(context, file);
  });
}
