// A consumer's code on the client @hey-api/openapi-ts generated (its own
// fetch client, the server's address built in). Type-checked with tsc
// --strict, then run against the demo server; prints what it checked.
import { client } from "./hey_api/client.gen.ts";
import { listCallMessages, testTrigger } from "./hey_api/sdk.gen.ts";
import type {
  CallMessage,
  KnownTriggerEvent,
  ListCallMessagesErrors,
  TestTriggerErrors,
} from "./hey_api/types.gen.ts";

client.setConfig({ baseUrl: process.argv[2] });
const auth = (role: string) => ({ Authorization: `Bearer demo-${role}` });

const trigger = await testTrigger({
  path: { flow_id: "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f" },
  headers: auth("member"),
});
const times: string[] = [];
for (const event of (trigger.data?.events ?? []) as KnownTriggerEvent[]) {
  if (event.event === "schedule.fired") {
    const when: string = event.scheduled_for;
    // A misuse the types refuse (never run).
    void (() => {
      // @ts-expect-error scheduled_for is a string
      event.scheduled_for.toFixed();
    });
    times.push(when);
  }
}

const messages = await listCallMessages({
  path: { call_id: "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b" },
  headers: auth("viewer"),
});
const texts = (messages.data ?? []).map((message: CallMessage) => {
  const text: string | undefined = message.text;
  // @ts-expect-error role is a string
  const role: number | undefined = message.role;
  return [text, role];
});

const forbidden = await testTrigger({
  path: { flow_id: "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f" },
  headers: auth("viewer"),
});
let code: "UNAUTHORIZED_ROLE" | undefined;
if (forbidden.response?.status === 403) {
  code = (forbidden.error as TestTriggerErrors[403]).error_code;
}
const invalid = await listCallMessages({
  path: { call_id: "not-a-uuid" },
  headers: auth("viewer"),
});
let loc: (string | number)[] | undefined;
if (invalid.response?.status === 422) {
  loc = (invalid.error as ListCallMessagesErrors[422]).detail?.[0]?.loc;
}
console.log(JSON.stringify({
  times,
  texts: texts.map(([text]) => text),
  forbidden: [forbidden.response?.status, code],
  invalid: [invalid.response?.status, loc],
}));
