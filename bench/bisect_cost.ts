/**
 * Whether a commit made the API's hot path dearer, for `git bisect run`: the
 * server CPU a request of the trigger test (webhook flow, owner token, access
 * log on, stdout a file), of the commit under test against a reference
 * checkout's, as a ratio measured in the same run. `BISECT_SERVER=mock`
 * measures the standalone mock instead (`server/cli.ts mock --port 0`, its
 * demo data: the demo webhook flow, `demo-owner` token), as
 * `mock_request_shapes.ts` does; `BISECT_SHAPE` picks the request's shape
 * there (`no-length`, the default, `length-0` or `json-body`).
 *
 * The commit under test is the checkout in the current directory (the one
 * `git bisect` moves; `BISECT_CANDIDATE=<checkout>` names another); the
 * reference is `BISECT_REFERENCE=<checkout>`, e.g. a `git worktree` of the
 * last good commit. Both run their own `server/main.ts` side by side under
 * `BISECT_RUNTIME` (`node`, `deno` or `bun`; default `node`) with the fixtures
 * of this script's checkout. The runtime and the servers' packages come from
 * the current directory's `node_modules` (in a bisect, a symlink to one
 * `npm ci`: the lockfile changes nothing the servers import in
 * `8c3910e..f866d68`).
 * After a 1 s warm-up, wrk `-t1 -c50` loads both at once (one wrk each) for
 * `BENCH_SECONDS` (default 1), `BENCH_ROUNDS` times (default 8); the ratio is
 * the median over the rounds of the candidate's CPU µs a request (from
 * `/proc`) over the reference's in the same round. Loaded at the same moment,
 * both servers share whatever else the machine runs, which moves absolute µs
 * by a third between minutes; the reference against itself still spreads by
 * about ±12 % at a load average of 15 on 2 cores (more at 30), so a change
 * costing less than a quarter is not found reliably on a busy machine.
 *
 * It prints one line: the commit, the ratio, both servers' median µs, the
 * load average. With `BISECT_THRESHOLD` it exits 1 (bad) when the ratio is at
 * or above it, else 0 (good); 125 (skip) when a server does not start or
 * answers other than 2xx; 128 (stop the bisect) without `BISECT_REFERENCE`
 * or the runtime in `./node_modules/.bin`. Without a threshold it exits 0
 * and only prints.
 *
 * Bisect (pick the threshold halfway between the endpoints' ratios: the good
 * end's is 1, measure the bad end's first without `BISECT_THRESHOLD`):
 *
 * ```sh
 * git worktree add --detach ../ref 8c3910e && git worktree add --detach ../cand f866d68
 * ln -s $PWD/node_modules ../ref/ && ln -s $PWD/node_modules ../cand/
 * cd ../cand && BISECT_REFERENCE=../ref BISECT_RUNTIME=deno node ../wt/bench/bisect_cost.ts
 * git bisect start f866d68 8c3910e
 * BISECT_REFERENCE=../ref BISECT_RUNTIME=deno BISECT_THRESHOLD=1.6 \
 *   git bisect run node ../wt/bench/bisect_cost.ts
 * git bisect log > ../deno.bisect; git bisect reset
 * ```
 *
 * The cost along the first-parent path: check out each commit of
 * `git rev-list --first-parent 8c3910e..f866d68` in `../cand` and run the
 * script there without a threshold; a commit's cost is its ratio less its
 * parent's.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { apiFixtures, FLOWS, TOKENS } from "../test/support/api_fixtures.ts";
import {
  cpuSeconds,
  type LoggingServer,
  luaScript,
  median,
  RUNTIME_COMMANDS,
  shapeScript,
  startLoggingServer,
  wrkAsync,
} from "./hot_path.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "1";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const RUNTIME = process.env.BISECT_RUNTIME ?? "node";
const REFERENCE = process.env.BISECT_REFERENCE;
const CANDIDATE = resolve(process.env.BISECT_CANDIDATE ?? process.cwd());
const THRESHOLD = process.env.BISECT_THRESHOLD;
const MOCK = process.env.BISECT_SERVER === "mock";
const SHAPE = process.env.BISECT_SHAPE ?? "no-length";
/** The demo data's webhook flow and owner token, which the mock serves. */
const DEMO = {
  path: "/v1/workflow/a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d/trigger/test",
  token: "demo-owner",
};
/** `git bisect run`'s exit code for a commit that cannot be measured. */
const SKIP = 125;
/** An exit code that stops `git bisect run`: the setup is wrong. */
const ABORT = 128;

/**
 * Starts a checkout's `server/main.ts` on the fixtures, log on; or its mock
 * on the demo data.
 */
function startApi(checkout: string, fixtures: string): Promise<LoggingServer> {
  const command = RUNTIME_COMMANDS[RUNTIME]!;
  if (MOCK) {
    return startLoggingServer(
      [...command, join(checkout, "server/cli.ts"), "mock", "--port", "0"],
      {},
      /listening on (http:\/\/\S+)/,
    );
  }
  return startLoggingServer(
    [...command, join(checkout, "server/main.ts")],
    { PORT: "0", FIXTURES: fixtures, LOG_LEVEL: "info" },
    /listening on (http:\/\/\S+)/,
  );
}

/** CPU µs a request of each server, in rounds that load all at once. */
async function measure(servers: LoggingServer[]): Promise<number[][]> {
  const script = MOCK ? shapeScript(SHAPE) : luaScript("bisect-post", "POST");
  const { path, token } = MOCK ? DEMO : {
    path: `/v1/workflow/${FLOWS.webhook}/trigger/test`,
    token: TOKENS.owner,
  };
  const run = async (server: LoggingServer, seconds: string) => {
    const before = cpuSeconds(server.pid);
    const result = await wrkAsync(`${server.url}${path}`, seconds, [
      "-H",
      `Authorization: Bearer ${token}`,
      "-s",
      script,
    ]);
    if (result.non2xx > 0) {
      throw new Error(`${result.non2xx} answers other than 2xx`);
    }
    return (cpuSeconds(server.pid) - before) * 1e6 / result.requests;
  };
  await Promise.all(servers.map((server) => run(server, "1")));
  const cpu = servers.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    const figures = await Promise.all(
      servers.map((server) => run(server, SECONDS)),
    );
    figures.forEach((figure, which) => cpu[which]!.push(figure));
  }
  return cpu;
}

if (import.meta.main) {
  if (
    REFERENCE === undefined || !(RUNTIME in RUNTIME_COMMANDS) ||
    !existsSync(RUNTIME_COMMANDS[RUNTIME]![0]!)
  ) {
    console.error(
      "Cannot measure: BISECT_REFERENCE unset, or no BISECT_RUNTIME in ./node_modules/.bin",
    );
    process.exit(ABORT);
  }
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: CANDIDATE,
    encoding: "utf8",
  }).trim();
  const dir = mkdtempSync(join(tmpdir(), "bisect-"));
  const fixtures = join(dir, "fixtures.json");
  writeFileSync(fixtures, JSON.stringify(apiFixtures));
  const started: LoggingServer[] = [];
  let code = 0;
  try {
    started.push(await startApi(CANDIDATE, fixtures));
    started.push(await startApi(resolve(REFERENCE), fixtures));
    const [candidates, references] = await measure(started) as [
      number[],
      number[],
    ];
    const ratio = median(candidates.map((cpu, i) => cpu / references[i]!));
    const [candidate, reference] = [median(candidates), median(references)];
    const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    console.log(
      `${commit} ${RUNTIME}${MOCK ? ` mock ${SHAPE}` : ""} ratio ${
        ratio.toFixed(3)
      } candidate ${candidate.toFixed(1)} µs reference ${
        reference.toFixed(1)
      } µs load ${load}`,
    );
    if (THRESHOLD !== undefined && ratio >= Number(THRESHOLD)) code = 1;
  } catch (error) {
    console.log(`${commit} ${RUNTIME} skipped: ${(error as Error).message}`);
    code = SKIP;
  } finally {
    for (const server of started) {
      await server.stop();
      rmSync(server.stdout);
    }
    rmSync(dir, { recursive: true });
  }
  process.exit(code);
}
