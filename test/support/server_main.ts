/**
 * `server/main.ts` (what `npm start` runs) as a child process on the runtime
 * running the test, on a port of its choosing.
 *
 * @module
 */
import process from "node:process";
import { runtimeName } from "../../server/runtimes/mod.ts";
import { ServerProcess, UNSET_SERVER_SETTINGS } from "../deploy/processes.ts";

/** A started server and the URL it announced. */
export interface StartedServer {
  server: ServerProcess;
  /** Resolves with `http://127.0.0.1:<port>` once it listens. */
  url: Promise<string>;
}

/**
 * Starts `server/main.ts` with `env` added to this process's environment,
 * less its server settings (`PORT=0`, `HOST=127.0.0.1`, `LOG_LEVEL=off`
 * unless given). `url` rejects
 * when the process exits before it listens.
 *
 * @example
 * ```ts ignore
 * const { server, url } = startServerMain({ DATABASE_URL: db.url });
 * console.log(await url);
 * await server.stop();
 * ```
 */
export function startServerMain(env: Record<string, string>): StartedServer {
  const args = {
    node: ["server/main.ts"],
    deno: ["run", "--allow-all", "server/main.ts"],
    bun: ["server/main.ts"],
  }[runtimeName()];
  const server = new ServerProcess(process.execPath, args, {
    cwd: process.cwd(),
    env: {
      ...process.env,
      ...UNSET_SERVER_SETTINGS,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "off",
      ...env,
    },
  });
  const url = new Promise<string>((resolve, reject) => {
    let exited = false;
    void server.exited.then(() => exited = true);
    const poll = setInterval(() => {
      const match = /listening on (\S+)/.exec(server.stdout);
      if (match) {
        clearInterval(poll);
        resolve(match[1]!);
      } else if (exited) {
        clearInterval(poll);
        reject(new Error(`server exited before listening\n${server.output}`));
      }
    }, 50);
  });
  return { server, url };
}
