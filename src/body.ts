/**
 * Reading a request body with a size limit, without ever buffering more than
 * the limit.
 *
 * @module
 */
import { HttpError } from "./http_error.ts";

/** The largest request body accepted: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a request's body whole, refusing it with 413 `PAYLOAD_TOO_LARGE` as
 * soon as it is known to exceed `limit`: from `Content-Length` before reading
 * anything, else while reading, with the rest left unread.
 *
 * @param request The request.
 * @param limit The largest body accepted, in bytes.
 * @returns The body's bytes (empty when there is none).
 * @throws {HttpError} 413 when the body is larger than `limit`.
 *
 * @example
 * ```ts
 * import { readBody } from "./body.ts";
 *
 * const bytes = await readBody(new Request("http://x/", { method: "POST", body: "{}" }));
 * console.log(bytes.length); // 2
 * ```
 */
export async function readBody(
  request: Request,
  limit: number = MAX_BODY_BYTES,
): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limit) throw tooLarge(limit);
  if (request.body === null) return new Uint8Array();

  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    "PAYLOAD_TOO_LARGE",
    `Request body is larger than ${limit} bytes`,
  );
}
