/**
 * The `Queue` proposed to postgres.js in docs/postgres-js.md (the patch on
 * the page applies to the installed 3.4.9) answers every
 * sequence of calls exactly as the published one does: same values from
 * `shift` and `remove`, same `length`. What it changes is cost only, which
 * `bench/postgres_js_queue.ts` measures.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  loadQueue,
  proposedQueueFile,
  PUBLISHED_QUEUE,
  queuePatch,
} from "./support/postgres_js_queue.ts";

const published = await loadQueue(PUBLISHED_QUEUE);
const proposed = await loadQueue(proposedQueueFile());

/** A call: push item `n`, shift, or remove item `n` (queued or not). */
const call = fc.oneof(
  fc.record({ op: fc.constant("push"), n: fc.nat(40) }),
  fc.record({ op: fc.constant("shift"), n: fc.constant(0) }),
  fc.record({ op: fc.constant("remove"), n: fc.nat(40) }),
);

describe("postgres.js Queue, proposed (docs/postgres-js.md)", () => {
  it("is a patch of the installed postgres.js's src/queue.js", () => {
    assert.equal(queuePatch().before, readFileSync(PUBLISHED_QUEUE, "utf8"));
  });

  it("answers as the published one over any sequence of calls", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(40), { maxLength: 20 }),
        fc.array(call, { maxLength: 400 }),
        (initial, calls) => {
          const items = Array.from({ length: 41 }, (_, n) => ({ n }));
          const start = initial.map((n) => items[n]!);
          const queues = [published(start), proposed(start)];
          for (const { op, n } of calls) {
            const [a, b] = queues.map((queue) =>
              op === "push"
                ? queue.push(items[n]!)
                : op === "shift"
                ? queue.shift()
                : queue.remove(items[n]!)
            );
            assert.equal(b, a, op);
            assert.equal(queues[1]!.length, queues[0]!.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps order across its compactions, queued items and removals", () => {
    // Ten queued at all times: the head passes 64 holes, then half the
    // array, again and again.
    const queue = proposed(Array.from({ length: 10 }, (_, n) => n));
    const taken: number[] = [];
    for (let next = 10; next < 1010; next += 1) {
      queue.push(next);
      queue.push(-1);
      assert.equal(queue.remove(-2), null);
      assert.equal(queue.remove(-1), -1);
      if (next % 100 === 0) {
        // A queued item taken out from behind others, one put in its place.
        assert.equal(queue.remove(next - 5), next - 5);
        queue.push(next + 0.5);
      }
      taken.push(queue.shift()!);
      assert.equal(queue.length, 10);
    }
    while (queue.length > 0) taken.push(queue.shift()!);
    const expected = Array.from({ length: 1010 }, (_, n) => n)
      .filter((n) => !(n % 100 === 95 && n > 10))
      .flatMap((n) => n % 100 === 0 && n > 10 ? [n, n + 0.5] : [n]);
    assert.deepEqual(taken, expected);
  });
});
