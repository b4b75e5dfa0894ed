// A consumer's code on the fetch client orval generated (the server's
// address from the document's servers built in). Type-checked with tsc
// --strict, then run against the demo server; prints what it checked.
import {
  type CallMessage,
  type KnownTriggerEvent,
  listCallMessages,
  testTrigger,
} from "./orval/api.ts";

// The generated URLs name the address the document was served from.
const auth = (role: string): RequestInit => ({
  headers: { Authorization: `Bearer demo-${role}` },
});

const trigger = await testTrigger(
  "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f",
  auth("member"),
);
const times: string[] = [];
if (trigger.status === 200) {
  for (const event of trigger.data.events as KnownTriggerEvent[]) {
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
}

const messages = await listCallMessages(
  "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b",
  auth("viewer"),
);
const texts: (string | undefined)[] = [];
if (messages.status === 200) {
  for (const message of messages.data as CallMessage[]) {
    const text: string | undefined = message.text;
    // @ts-expect-error role is a string
    const role: number | undefined = message.role;
    texts.push(text ?? String(role));
  }
}

const forbidden = await testTrigger(
  "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f",
  auth("viewer"),
);
let code: "UNAUTHORIZED_ROLE" | undefined;
if (forbidden.status === 403) code = forbidden.data.error_code;
const invalid = await listCallMessages("not-a-uuid", auth("viewer"));
let loc: (string | number)[] | undefined;
if (invalid.status === 422) loc = invalid.data.detail?.[0]?.loc;
console.log(JSON.stringify({
  times,
  texts,
  forbidden: [forbidden.status, code],
  invalid: [invalid.status, loc],
}));
