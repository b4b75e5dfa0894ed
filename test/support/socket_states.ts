/**
 * What the kernel says of a TCP connection on this machine, from the
 * server's side: for tests that must see a connection closed, not only a
 * server that says it let go. Linux's `ss` (iproute2); where it is missing,
 * {@linkcode SOCKET_STATES} is false and such tests skip.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** Whether `ss` is there to ask. */
export const SOCKET_STATES = ["/usr/bin/ss", "/bin/ss", "/usr/sbin/ss"].some(
  existsSync,
);

/**
 * The states (`ESTAB`, `FIN-WAIT-1`, ...) of the server's sockets of the
 * connection between `serverPort` and `clientPort` on 127.0.0.1: none once
 * the server's side is gone.
 *
 * @param serverPort The port the server listens on.
 * @param clientPort The client's local port.
 * @returns The states, e.g. `["ESTAB"]`.
 *
 * @example
 * ```ts ignore
 * import { serverSideStates } from "./support/socket_states.ts";
 *
 * serverSideStates(server.port, socket.localPort!); // ["ESTAB"]
 * ```
 */
export function serverSideStates(
  serverPort: number,
  clientPort: number,
): string[] {
  const lines = execFileSync("ss", [
    "-tanH",
    `( sport = :${serverPort} and dport = :${clientPort} )`,
  ]).toString().trim();
  return lines === ""
    ? []
    : lines.split("\n").map((line) => line.split(/\s+/)[0]!);
}
