/**
 * The graceful shutdown every server entry runs on SIGTERM or SIGINT: stop
 * being ready, drain, stop listening, close the store, all within
 * `SHUTDOWN_TIMEOUT`.
 *
 * @module
 */
import process from "node:process";
import { type Drain, QUIET_MS } from "./drain.ts";

/** The part of a running server a shutdown drives. */
export interface StoppableServer {
  /** Stops listening; resolves once the open responses have ended. */
  close(): Promise<void>;
  /** Closes every connection now. */
  cut(): void;
}

/** The part of the app a shutdown drives (see `ServerApp`). */
export interface ClosableApp {
  /** Its requests, counted by its pipeline's draining step. */
  drain: Drain;
  /** Makes `/readyz` answer 503. */
  beginShutdown(): void;
  /** Closes the store. */
  close(): Promise<void>;
}

/**
 * Shuts down gracefully within `timeoutMs`:
 * 1. `/readyz` answers 503 at once, and every response asks its client to
 *    close the connection (`Connection: close`);
 * 2. requests keep being served, on open and new connections, until none
 *    is in flight (exports included) and none has arrived for
 *    {@linkcode QUIET_MS} (health probes aside): by then a balancer polling
 *    `/readyz` sends its new connections elsewhere;
 * 3. the server stops listening (new connections are refused) and closes
 *    its idle connections;
 * 4. the store is closed.
 *
 * At 90 % of `timeoutMs` whatever is still open is cut, so that the store
 * can close before the deadline; the returned promise resolves by
 * `timeoutMs` in any case.
 *
 * @param server The listening server.
 * @param app The app it serves.
 * @param timeoutMs The deadline, in ms (`SHUTDOWN_TIMEOUT` × 1000).
 * @returns How long it took, in ms.
 *
 * @example
 * ```ts ignore
 * import { shutDown } from "./shutdown.ts";
 *
 * const ms = await shutDown(server, app, 30_000);
 * console.log(`Stopped after ${ms} ms`);
 * ```
 */
export async function shutDown(
  server: StoppableServer,
  app: ClosableApp,
  timeoutMs: number,
): Promise<number> {
  const started = performance.now();
  const cutAt = started + timeoutMs * 0.9;
  app.beginShutdown();
  app.drain.begin();
  const draining = new AbortController();
  await within(
    app.drain.settled(QUIET_MS, draining.signal),
    cutAt - performance.now(),
  );
  draining.abort();
  const closing = server.close().catch(() => {});
  if (!(await within(closing, cutAt - performance.now()))) server.cut();
  const closingApp = app.close().catch(() => {});
  await within(closingApp, started + timeoutMs - performance.now());
  return Math.round(performance.now() - started);
}

/**
 * Calls `stop` once, on the first SIGINT or SIGTERM, naming the signal.
 * Later signals are ignored, or, with `repeatKills`, get the runtime's
 * default (the process ends): a second Ctrl+C stops a stuck stop.
 *
 * @param stop What to do.
 * @param options `repeatKills`: let a second signal end the process.
 *
 * @example
 * ```ts ignore
 * import { onStopSignal } from "./shutdown.ts";
 *
 * onStopSignal((signal) => console.log(`${signal}: shutting down`));
 * ```
 */
export function onStopSignal(
  stop: (signal: string) => void,
  { repeatKills = false }: { repeatKills?: boolean } = {},
): void {
  let stopping = false;
  const listeners = {
    SIGINT: () => once("SIGINT"),
    SIGTERM: () => once("SIGTERM"),
  };
  const once = (signal: keyof typeof listeners) => {
    if (repeatKills) {
      for (const [name, listener] of Object.entries(listeners)) {
        process.off(name, listener);
      }
    }
    if (stopping) return;
    stopping = true;
    stop(signal);
  };
  for (const [name, listener] of Object.entries(listeners)) {
    process.on(name, listener);
  }
}

/**
 * The shutdown of every API server entry: on the first SIGINT or SIGTERM,
 * says so, runs {@linkcode shutDown} within `timeoutSeconds`, and says how
 * long it took.
 *
 * @param server The listening server.
 * @param app The app it serves.
 * @param timeoutSeconds The deadline (`SHUTDOWN_TIMEOUT`).
 * @param say Where the two lines go (default stdout).
 * @returns Resolves once shut down.
 *
 * @example
 * ```ts ignore
 * import process from "node:process";
 * import { shutDownOnStopSignal } from "./shutdown.ts";
 *
 * await shutDownOnStopSignal(server, app, 30);
 * process.exit(0);
 * ```
 */
export function shutDownOnStopSignal(
  server: StoppableServer,
  app: ClosableApp,
  timeoutSeconds: number,
  say: (line: string) => void = console.log,
): Promise<void> {
  return new Promise((resolve) => {
    onStopSignal(async (signal) => {
      say(
        `${signal}: shutting down (draining, at most ${timeoutSeconds} s)`,
      );
      const took = await shutDown(server, app, timeoutSeconds * 1000);
      say(`Stopped after ${took} ms`);
      resolve();
    });
  });
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(ms, 0));
  });
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
