/**
 * Trigger test events: each trigger kind's sample events, and the schedule's
 * fire times across daylight-saving changes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../src/errors/http_error.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { nextFireTimes, scheduleProblem } from "../src/store/schedule.ts";
import type { Flow, Trigger } from "../src/store/store.ts";
import {
  EXAMPLE_CALL_ID,
  SAMPLE_EVENT_COUNT,
} from "../src/operations/trigger_events.ts";
import { sampleEvents } from "../src/operations/test_trigger.ts";

const ACME = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
const GLOBEX = "9f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a00";
const FLOW = "1d7f4a4e-8b3c-4f94-8f66-2a3d1c0b9a87";

function flow(trigger: Trigger, projectId = ACME): Flow {
  return { flowId: FLOW, projectId, name: "Flow", trigger };
}

function schedule(cron: string, timezone: string): Flow {
  return flow({ type: "schedule", cron, timezone });
}

/** The `scheduled_for` of each event, checking the event's shape. */
function scheduledFor(events: Record<string, unknown>[]): unknown[] {
  return events.map((event) => {
    assert.deepEqual(Object.keys(event).sort(), ["event", "scheduled_for"]);
    assert.equal(event.event, "schedule.fired");
    return event.scheduled_for;
  });
}

async function fireTimes(
  cron: string,
  timezone: string,
  now: string,
): Promise<unknown[]> {
  return scheduledFor(
    await sampleEvents(
      schedule(cron, timezone),
      new MemoryStore(),
      () => new Date(now),
    ),
  );
}

describe("schedule trigger", () => {
  /** Each behaviour: a schedule, `now`, and the 3 fire times expected. */
  const cases: {
    behaviour: string;
    cron: string;
    timezone: string;
    now: string;
    expected: string[];
  }[] = [
    {
      behaviour:
        "gives the next 3 fire times as schedule.fired events in ISO 8601 UTC",
      cron: "0 2 * * *",
      timezone: "UTC",
      now: "2026-01-01T12:00:00Z",
      expected: ["2026-01-02T02:00", "2026-01-03T02:00", "2026-01-04T02:00"],
    },
    {
      // 09:00 in Tokyo (UTC+9, no DST) is 00:00 UTC.
      behaviour: "reads the cron in the trigger's time zone",
      cron: "0 9 * * *",
      timezone: "Asia/Tokyo",
      now: "2026-06-01T12:00:00Z",
      expected: ["2026-06-02T00:00", "2026-06-03T00:00", "2026-06-04T00:00"],
    },
    {
      // 2026-03-29 02:00 CET becomes 03:00 CEST: 09:00 local moves from
      // 08:00 UTC to 07:00 UTC.
      behaviour: "follows Europe/Paris into summer time at the end of March",
      cron: "0 9 * * *",
      timezone: "Europe/Paris",
      now: "2026-03-27T12:00:00Z",
      expected: ["2026-03-28T08:00", "2026-03-29T07:00", "2026-03-30T07:00"],
    },
    {
      // 02:30 does not exist in Paris on 2026-03-29: it runs at 03:00 CEST.
      behaviour:
        "fires a time skipped by the spring-forward gap once, right after the gap",
      cron: "30 2 * * *",
      timezone: "Europe/Paris",
      now: "2026-03-28T12:00:00Z",
      expected: ["2026-03-29T01:00", "2026-03-30T00:30", "2026-03-31T00:30"],
    },
    {
      // 2026-11-01 02:00 EDT becomes 01:00 EST: 01:30 happens twice, the
      // daily job runs once (the first), then moves from 05:30 to 06:30 UTC.
      behaviour: "follows America/New_York back to standard time in November",
      cron: "30 1 * * *",
      timezone: "America/New_York",
      now: "2026-10-31T12:00:00Z",
      expected: ["2026-11-01T05:30", "2026-11-02T06:30", "2026-11-03T06:30"],
    },
    {
      behaviour:
        "fires an hourly job in both 01:00 hours of the New York fall-back night",
      cron: "0 * * * *",
      timezone: "America/New_York",
      now: "2026-11-01T04:30:00Z",
      expected: ["2026-11-01T05:00", "2026-11-01T06:00", "2026-11-01T07:00"],
    },
    {
      behaviour: "accepts a 6-field cron whose first field is seconds",
      cron: "*/20 * * * * *",
      timezone: "UTC",
      now: "2026-01-01T00:00:00Z",
      expected: [
        "2026-01-01T00:00:20",
        "2026-01-01T00:00:40",
        "2026-01-01T00:01:00",
      ],
    },
    {
      behaviour: "reads a 6-field cron's seconds in the trigger's time zone",
      cron: "15 0 9 * * 1",
      timezone: "Europe/Paris",
      now: "2026-03-27T12:00:00Z",
      expected: [
        "2026-03-30T07:00:15",
        "2026-04-06T07:00:15",
        "2026-04-13T07:00:15",
      ],
    },
    {
      behaviour: "leaves out now when now is itself a fire time",
      cron: "0 * * * *",
      timezone: "UTC",
      now: "2026-01-01T01:00:00.000Z",
      expected: ["2026-01-01T02:00", "2026-01-01T03:00", "2026-01-01T04:00"],
    },
    {
      behaviour: "gives the fire time a millisecond after now",
      cron: "0 * * * *",
      timezone: "UTC",
      now: "2026-01-01T00:59:59.999Z",
      expected: ["2026-01-01T01:00", "2026-01-01T02:00", "2026-01-01T03:00"],
    },
    {
      behaviour: "skips the fire time a millisecond before now",
      cron: "0 * * * *",
      timezone: "UTC",
      now: "2026-01-01T01:00:00.001Z",
      expected: ["2026-01-01T02:00", "2026-01-01T03:00", "2026-01-01T04:00"],
    },
  ];
  for (const { behaviour, cron, timezone, now, expected } of cases) {
    it(behaviour, async () => {
      assert.equal(expected.length, SAMPLE_EVENT_COUNT);
      assert.equal(scheduleProblem(cron, timezone), undefined);
      assert.deepEqual(
        await fireTimes(cron, timezone, now),
        expected.map((time) =>
          new Date(`${time}${time.length === 16 ? ":00" : ""}Z`).toISOString()
        ),
      );
    });
  }

  it("gives increasing times after the real current time", async () => {
    const now = new Date();
    const times =
      (await fireTimes("* * * * *", "Europe/Paris", now.toISOString()))
        .map((time) => Date.parse(time as string));
    assert.equal(times.length, 3);
    assert.ok(times[0]! > now.getTime());
    assert.ok(times[0]! - now.getTime() <= 60_000);
    assert.equal(times[1]! - times[0]!, 60_000);
    assert.equal(times[2]! - times[1]!, 60_000);
  });

  it("nextFireTimes gives as many times as asked", () => {
    const times = nextFireTimes(
      "0 0 1 * *",
      "UTC",
      5,
      new Date("2026-01-15T00:00:00Z"),
    );
    assert.deepEqual(times.map((time) => time.toISOString()), [
      "2026-02-01T00:00:00.000Z",
      "2026-03-01T00:00:00.000Z",
      "2026-04-01T00:00:00.000Z",
      "2026-05-01T00:00:00.000Z",
      "2026-06-01T00:00:00.000Z",
    ]);
  });
});

describe("scheduleProblem", () => {
  it("accepts a valid cron and IANA time zone", () => {
    assert.equal(scheduleProblem("0 9 * * 1-5", "Europe/Paris"), undefined);
    assert.equal(scheduleProblem("0 9 * * MON", "America/New_York"), undefined);
  });

  it("names an invalid cron expression", () => {
    for (const cron of ["0 9 * *", "61 * * * *", "* * * * * * * *", "nope"]) {
      const invalid = scheduleProblem(cron, "UTC");
      assert.equal(invalid?.field, "cron");
      assert.ok(
        invalid.problem.startsWith(`invalid cron expression "${cron}"`),
      );
    }
  });

  it("refuses a cron expression that never fires", () => {
    assert.deepEqual(scheduleProblem("0 9 31 2 *", "UTC"), {
      field: "cron",
      problem: 'cron expression "0 9 31 2 *" never fires',
    });
  });

  it("names an unknown time zone", () => {
    for (const timezone of ["Mars/Olympus", "", "Europe/Pariss"]) {
      assert.deepEqual(scheduleProblem("0 9 * * *", timezone), {
        field: "timezone",
        problem: `unknown time zone "${timezone}"`,
      });
    }
  });
});

describe("call_ended trigger", () => {
  async function storeWithCalls(
    calls: { call_id: string; created_at: string; messages?: number }[],
  ): Promise<MemoryStore> {
    const store = new MemoryStore();
    await store.seed({
      projects: [
        { project_id: ACME, name: "Acme" },
        { project_id: GLOBEX, name: "Globex" },
      ],
      calls: [
        ...calls.map(({ call_id, created_at, messages = 0 }) => ({
          call_id,
          project_id: ACME,
          created_at,
          messages: Array.from({ length: messages }, (_, i) => ({ i })),
        })),
        {
          // Another project's call, newer than all: never reported.
          call_id: "ffffffff-ffff-4fff-bfff-ffffffffffff",
          project_id: GLOBEX,
          created_at: "2030-01-01T00:00:00Z",
          messages: [{ hello: "globex" }],
        },
      ],
    });
    return store;
  }

  it("reports the project's 3 most recent calls, newest first", async () => {
    const store = await storeWithCalls([
      {
        call_id: "11111111-1111-4111-8111-111111111111",
        created_at: "2026-01-01T10:00:00Z",
        messages: 1,
      },
      {
        call_id: "22222222-2222-4222-8222-222222222222",
        created_at: "2026-01-04T10:00:00Z",
        messages: 4,
      },
      {
        call_id: "33333333-3333-4333-8333-333333333333",
        created_at: "2026-01-02T10:00:00Z",
        messages: 0,
      },
      {
        call_id: "44444444-4444-4444-8444-444444444444",
        created_at: "2026-01-03T10:00:00Z",
        messages: 2,
      },
    ]);
    const events = await sampleEvents(
      flow({ type: "call_ended" }),
      store,
      () => new Date("2026-02-01T00:00:00Z"),
    );
    assert.deepEqual(events, [
      {
        event: "call.ended",
        call_id: "22222222-2222-4222-8222-222222222222",
        created_at: "2026-01-04T10:00:00.000Z",
        message_count: 4,
      },
      {
        event: "call.ended",
        call_id: "44444444-4444-4444-8444-444444444444",
        created_at: "2026-01-03T10:00:00.000Z",
        message_count: 2,
      },
      {
        event: "call.ended",
        call_id: "33333333-3333-4333-8333-333333333333",
        created_at: "2026-01-02T10:00:00.000Z",
        message_count: 0,
      },
    ]);
  });

  it("orders by instant, whatever offset created_at was written with", async () => {
    const store = await storeWithCalls([
      // 08:00 UTC, written in +02:00: older than the 09:00 UTC call.
      {
        call_id: "11111111-1111-4111-8111-111111111111",
        created_at: "2026-01-01T10:00:00+02:00",
      },
      {
        call_id: "22222222-2222-4222-8222-222222222222",
        created_at: "2026-01-01T09:00:00Z",
      },
    ]);
    const events = await sampleEvents(
      flow({ type: "call_ended" }),
      store,
      () => new Date("2026-02-01T00:00:00Z"),
    );
    assert.deepEqual(events.map((event) => event.call_id), [
      "22222222-2222-4222-8222-222222222222",
      "11111111-1111-4111-8111-111111111111",
    ]);
  });

  it("orders calls created at the same instant by call_id", async () => {
    const at = "2026-01-05T10:00:00Z";
    const store = await storeWithCalls([
      { call_id: "dddddddd-dddd-4ddd-8ddd-dddddddddddd", created_at: at },
      { call_id: "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", created_at: at },
      { call_id: "eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee", created_at: at },
      {
        call_id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
        created_at: "2026-01-04T10:00:00Z",
      },
      { call_id: "cccccccc-cccc-4ccc-8ccc-cccccccccccc", created_at: at },
    ]);
    const events = await sampleEvents(
      flow({ type: "call_ended" }),
      store,
      () => new Date("2026-02-01T00:00:00Z"),
    );
    assert.deepEqual(events.map((event) => event.call_id), [
      "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb",
      "cccccccc-cccc-4ccc-8ccc-cccccccccccc",
      "dddddddd-dddd-4ddd-8ddd-dddddddddddd",
    ]);
  });

  it("gives one example event when the project has no calls", async () => {
    const store = await storeWithCalls([]);
    const now = new Date("2026-02-01T12:34:56.789Z");
    const events = await sampleEvents(
      flow({ type: "call_ended" }),
      store,
      () => now,
    );
    assert.deepEqual(events, [{
      event: "call.ended",
      call_id: EXAMPLE_CALL_ID,
      created_at: "2026-02-01T12:34:56.789Z",
      message_count: 0,
      example: true,
    }]);
    assert.equal(EXAMPLE_CALL_ID, "00000000-0000-0000-0000-000000000000");
  });

  it("marks only the example event as an example", async () => {
    const store = await storeWithCalls([
      {
        call_id: "11111111-1111-4111-8111-111111111111",
        created_at: "2026-01-01T10:00:00Z",
      },
    ]);
    const events = await sampleEvents(
      flow({ type: "call_ended" }),
      store,
      () => new Date("2026-02-01T00:00:00Z"),
    );
    assert.equal(events.length, 1);
    assert.equal("example" in events[0]!, false);
  });
});

describe("webhook trigger", () => {
  it("returns the sample payload as is, as the one event", async () => {
    const sample_payload = {
      order_id: "ord_123",
      items: [{ sku: "A", qty: 2 }, null, "x"],
      nested: { deep: { flag: false, none: null } },
      event: "not.ours",
    };
    const events = await sampleEvents(
      flow({
        type: "webhook",
        sample_payload: structuredClone(sample_payload),
      }),
      new MemoryStore(),
      () => new Date("2026-02-01T00:00:00Z"),
    );
    assert.deepEqual(events, [sample_payload]);
    assert.equal(JSON.stringify(events), JSON.stringify([sample_payload]));
  });

  it("returns an empty sample payload as an empty event", async () => {
    const events = await sampleEvents(
      flow({ type: "webhook", sample_payload: {} }),
      new MemoryStore(),
      () => new Date(),
    );
    assert.deepEqual(events, [{}]);
  });
});

describe("EMPTY trigger", () => {
  it("is refused with 409 TRIGGER_NOT_CONFIGURED", async () => {
    await assert.rejects(
      sampleEvents(
        flow({ type: "EMPTY" }),
        new MemoryStore(),
        () => new Date(),
      ),
      (error: unknown) => {
        assert.ok(error instanceof HttpError);
        assert.equal(error.status, 409);
        assert.equal(error.errorCode, "TRIGGER_NOT_CONFIGURED");
        return true;
      },
    );
  });

  it("renders as an ErrorResponseSchema body", async () => {
    const error = await sampleEvents(
      flow({ type: "EMPTY" }),
      new MemoryStore(),
      () => new Date(),
    ).then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof HttpError);
    const response = error.toResponse();
    assert.equal(response.status, 409);
    const body = await response.json();
    assert.deepEqual(Object.keys(body).sort(), [
      "error_code",
      "message",
      "status",
    ]);
    assert.equal(body.status, "error");
    assert.equal(body.error_code, "TRIGGER_NOT_CONFIGURED");
    assert.equal(typeof body.message, "string");
    assert.notEqual(body.message, "");
  });
});
