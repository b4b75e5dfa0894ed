/**
 * The mock command's `journal.har` read by tools that are not ours: Python's
 * standard library reads every entry and its timings from the saved file,
 * and httpsnippet (Kong's) turns each recorded request into a curl command
 * that, run again by bash against the reset mock (with the masked token put
 * back), gets the status the HAR recorded.
 *
 * Run by `node --test test/consumer/har_consumers.ts` (a stage of
 * `npm test`); skipped without `python3` or `curl`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HTTPSnippet } from "httpsnippet";
import type { Har } from "../../mock/har.ts";
import { type RunningCli, startMockCli } from "../support/mock_cli.ts";

const TOKEN = "demo-owner";
const missing = ["python3", "curl"].filter((tool) =>
  spawnSync(tool, ["--version"]).status !== 0
);

/** Reads the file with `json` alone, as a user's script would. */
const PYTHON_READER = `
import json, sys
with open(sys.argv[1]) as f:
    har = json.load(f)
assert har["log"]["version"] == "1.2"
for entry in har["log"]["entries"]:
    t = entry["timings"]
    total = sum(t[k] for k in ("send", "wait", "receive"))
    assert abs(total - entry["time"]) < 1e-9, (total, entry["time"])
    print(entry["request"]["method"], entry["response"]["status"],
          entry.get("_operationId"), entry["response"]["content"]["size"])
`;

describe(
  "journal.har read by other tools",
  { skip: missing.length > 0 },
  () => {
    const scratch = mkdtempSync(join(tmpdir(), "callflow-har-"));
    let mock: RunningCli;
    let har: Har;
    let file: string;

    before(async () => {
      mock = await startMockCli(["mock", "--port", "0"]);
      const state = await (await fetch(`${mock.url}/__mock/state`)).json();
      const call = state.calls[0].call_id;
      const integration = state.integrations[0].integration_id;
      const send = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(`${mock.url}${path}`, {
          ...init,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
          },
        });
        await response.arrayBuffer();
      };
      await send(`/v1/call/${call}/message?limit=5`);
      await send(`/v1/integration/${integration}`, { method: "DELETE" });
      await send(`/v1/integration/${integration}`, { method: "DELETE" });
      await send("/v1/call/message/bulk", {
        method: "POST",
        body: JSON.stringify({ call_ids: [] }),
      });
      await send("/v1/call/message/bulk", {
        method: "POST",
        body: JSON.stringify({ call_ids: [call] }),
      });
      const response = await fetch(`${mock.url}/__mock/journal.har`);
      const text = await response.text();
      file = join(scratch, "journal.har");
      writeFileSync(file, text);
      har = JSON.parse(text);
    });
    after(async () => {
      await mock?.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    it("is read by Python's json module: entries and timings", () => {
      const script = join(scratch, "read_har.py");
      writeFileSync(script, PYTHON_READER);
      const output = execFileSync("python3", [script, file], {
        encoding: "utf8",
      });
      const zipSize = har.log.entries[4]!.response.content.size;
      assert.ok(zipSize > 0);
      assert.deepEqual(output.trim().split("\n"), [
        `GET 200 listCallMessages ${har.log.entries[0]!.response.content.size}`,
        "DELETE 204 deleteIntegration 0",
        `DELETE 404 deleteIntegration ${
          har.log.entries[2]!.response.content.size
        }`,
        `POST 422 bulkDownloadTranscripts ${
          har.log.entries[3]!.response.content.size
        }`,
        `POST 200 bulkDownloadTranscripts ${zipSize}`,
      ]);
    });

    it("is turned into curl commands by httpsnippet that replay the same answers", async () => {
      const snippets = new HTTPSnippet(
        har as unknown as ConstructorParameters<typeof HTTPSnippet>[0],
      ).convert("shell", "curl") as string[];
      assert.equal(snippets.length, 5);
      const reset = await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
      assert.equal(reset.status, 204);
      const statuses = snippets.map((snippet) => {
        // The HAR masks the token: a user puts theirs back.
        assert.match(snippet, /authorization: Bearer \*\*\*/);
        const command = snippet.replace("Bearer ***", `Bearer ${TOKEN}`);
        return Number(
          execFileSync(
            "bash",
            ["-c", `${command} -s -o /dev/null -w '%{http_code}'`],
            { encoding: "utf8" },
          ),
        );
      });
      assert.deepEqual(
        statuses,
        har.log.entries.map((entry) => entry.response.status),
      );
    });
  },
);
