/**
 * Mixed load on a running server, every answer checked: concurrent clients
 * send lookups (found and not), exports, trigger tests, deletes (first and
 * repeated) and unknown tokens for a while, and each answer is compared with
 * what the in-memory store answers for the same fixtures (each distinct ZIP
 * by independent readers, after the load).
 *
 * @module
 */
import { createHandler } from "../../src/handler.ts";
import type { FixturesInput } from "../../src/store/fixtures.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";
import { manyCalls } from "./many_calls.ts";
import { readZip } from "./zip_reader.ts";

/** Fixtures for {@linkcode runMixedLoad} and what it asks for. */
export interface MixedLoadData {
  fixtures: FixturesInput;
  token: string;
  callIds: string[];
  /** Integrations to delete, one each, in order. */
  integrationIds: string[];
  /** A `call_ended` flow and a webhook flow. */
  flowIds: string[];
}

/**
 * A project with `calls` calls of 4 messages, `integrations` integrations
 * to delete and two flows; ids start with `prefix` (two hex digits).
 *
 * @example
 * ```ts ignore
 * const data = mixedLoadData("a1", { calls: 40, integrations: 3000 });
 * ```
 */
export function mixedLoadData(
  prefix: string,
  sizes: { calls: number; integrations: number },
): MixedLoadData {
  const many = manyCalls({ prefix, calls: sizes.calls, messages: 4 });
  const id = (kind: string, n: number) =>
    `${prefix}${kind}0000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const integrationIds = Array.from(
    { length: sizes.integrations },
    (_, n) => id("11", n),
  );
  const flowIds = [id("22", 0), id("22", 1)];
  return {
    token: many.token,
    callIds: many.callIds,
    integrationIds,
    flowIds,
    fixtures: {
      ...many.fixtures,
      integrations: integrationIds.map((integrationId, n) => ({
        integration_id: integrationId,
        project_id: many.project,
        kind: "http" as const,
        name: `Integration ${n}`,
        tools: [],
      })),
      flows: [
        {
          flow_id: flowIds[0]!,
          project_id: many.project,
          name: "After calls",
          trigger: { type: "call_ended" as const },
        },
        {
          flow_id: flowIds[1]!,
          project_id: many.project,
          name: "Webhook",
          trigger: { type: "webhook" as const, sample_payload: { n: 1 } },
        },
      ],
    },
  };
}

/**
 * Settings for a server under {@linkcode runMixedLoad}: its clients send an
 * unknown token every sixth request, all from 127.0.0.1, far past the
 * failed-authentication limit, so that limit is lifted for them.
 */
export const MIXED_LOAD_SERVER_ENV: Readonly<Record<string, string>> = {
  AUTH_FAILURE_LIMIT: "9999",
};

/** How {@linkcode runMixedLoad} ran. */
export interface MixedLoadResult {
  /** Answers by kind of request. */
  counts: Record<string, number>;
  /** Each answer that was not the expected one, described. */
  unexpected: string[];
}

/** A request to send and how to check its answer. */
interface Probe {
  kind: string;
  request: () => Request;
  /** What the answer must be, as a comparable text. */
  expected: () => Promise<string>;
}

/**
 * Sends mixed requests from `clients` concurrent loops for `ms`
 * milliseconds to `base`, and checks every answer. Deletes take the data's
 * integrations in order (204), then delete them again (404).
 *
 * @example
 * ```ts ignore
 * const result = await runMixedLoad(base, data, { clients: 20, ms: 10_000 });
 * assert.deepEqual(result.unexpected, []);
 * ```
 */
export async function runMixedLoad(
  base: string,
  data: MixedLoadData,
  options: { clients: number; ms: number },
): Promise<MixedLoadResult> {
  const memory = new MemoryStore();
  await memory.seed(data.fixtures);
  const oracle = createHandler({ store: memory });
  const cache = new Map<string, Promise<string>>();
  const expectedZips = new Map<string, Uint8Array>();
  const expect = (key: string, request: () => Request) => () => {
    let answer = cache.get(key);
    if (answer === undefined) {
      answer = oracle(request()).then((response) =>
        describe(response, expectedZips)
      );
      cache.set(key, answer);
    }
    return answer;
  };
  const zips = new Map<string, Uint8Array>();
  const auth = { authorization: `Bearer ${data.token}` };
  const url = (path: string) => new URL(path, base).href;
  let deletes = 0;
  const probes: ((n: number) => Probe)[] = [
    (n) => {
      const path = `/v1/call/${data.callIds[n % data.callIds.length]}/message`;
      const request = () => new Request(url(path), { headers: auth });
      return { kind: "lookup", request, expected: expect(path, request) };
    },
    () => {
      const path = "/v1/call/ffffffff-0000-4000-8000-000000000000/message";
      const request = () => new Request(url(path), { headers: auth });
      return { kind: "lookup 404", request, expected: expect(path, request) };
    },
    () => {
      const request = () =>
        new Request(url("/v1/call/message/bulk"), {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ call_ids: data.callIds }),
        });
      return { kind: "export", request, expected: expect("export", request) };
    },
    (n) => {
      const flow = data.flowIds[n % data.flowIds.length]!;
      const path = `/v1/workflow/${flow}/trigger/test`;
      const request = () =>
        new Request(url(path), { method: "POST", headers: auth });
      return { kind: "trigger", request, expected: expect(path, request) };
    },
    () => {
      const n = deletes++;
      const first = n < data.integrationIds.length;
      const id = data.integrationIds[n % data.integrationIds.length];
      const request = () =>
        new Request(url(`/v1/integration/${id}`), {
          method: "DELETE",
          headers: auth,
        });
      return {
        kind: first ? "delete" : "delete again",
        request,
        expected: () => Promise.resolve(first ? "204 " : "404"),
      };
    },
    () => {
      const path = `/v1/call/${data.callIds[0]}/message`;
      const request = () =>
        new Request(url(path), {
          headers: { authorization: "Bearer no-such-token" },
        });
      return { kind: "401", request, expected: expect("401", request) };
    },
  ];
  const counts: Record<string, number> = {};
  const unexpected: string[] = [];
  const deadline = Date.now() + options.ms;
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      for (let n = client; Date.now() < deadline; n++) {
        const probe = probes[n % probes.length]!(n);
        let answer: string;
        try {
          answer = await describe(
            await fetch(probe.request(), {
              signal: AbortSignal.timeout(20_000),
            }),
          );
        } catch (error) {
          answer = `failed: ${(error as Error).message}`;
        }
        const expected = await probe.expected();
        counts[probe.kind] = (counts[probe.kind] ?? 0) + 1;
        if (!matches(answer, expected)) {
          unexpected.push(`${probe.kind}: ${answer.slice(0, 300)}`);
        }
      }
    }),
  );
  const [expectedZip] = expectedZips.values();
  if (expectedZip !== undefined) {
    const expected = entriesOf(expectedZip);
    for (const bytes of zips.values()) {
      const entries = entriesOf(bytes);
      if (entries !== expected) unexpected.push(`export: ${entries}`);
    }
  }
  return { counts, unexpected };
}

/**
 * A response as comparable text: the status, then the body (JSON without
 * its request id). A ZIP is described by its SHA-256 and kept in `zips`, to
 * be read once per distinct archive after the load (the independent readers
 * take a while).
 */
async function describe(
  response: Response,
  zips?: Map<string, Uint8Array>,
): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (response.headers.get("content-type") === "application/zip") {
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    const hex = [...new Uint8Array(digest)]
      .map((byte) => byte.toString(16).padStart(2, "0")).join("");
    zips?.set(hex, bytes);
    return `${response.status} zip`;
  }
  const text = new TextDecoder().decode(bytes);
  return `${response.status} ${text.replace(/\(request id [^)]*\)/, "")}`;
}

/** A ZIP's entries as comparable text. */
function entriesOf(bytes: Uint8Array): string {
  return JSON.stringify(
    readZip(bytes).map((entry) => [entry.name, entry.text]),
  );
}

/** A delete's answer is checked by status alone (404's body names the id). */
function matches(answer: string, expected: string): boolean {
  return expected === "404" ? answer.startsWith("404 ") : answer === expected;
}
