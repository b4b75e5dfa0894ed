/**
 * The script of the mock's live page (`GET /__mock/ui.js`), as text: no
 * framework, no build step. It polls `GET /__mock/rows?after=<seq>` every
 * half second for the rows of the requests it has not seen (nothing happens
 * per request on the server: the page asks), and the state and faults every
 * two seconds; a click fetches that request as HAR
 * (`GET /__mock/journal.har?after=<seq - 1>&limit=1`). It renders with
 * `textContent` only, never HTML from the journal.
 *
 * @module
 */

/**
 * The page's script.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PAGE_SCRIPT } from "./page_script.ts";
 *
 * assert.match(PAGE_SCRIPT, /rows\?after=/);
 * ```
 */
export const PAGE_SCRIPT: string = String.raw`"use strict";
const $ = (id) => document.getElementById(id);
const rows = [];
let seq = 0;
let clears = -1;
let selected = null;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

function statusClass(status) {
  if (status === 0) return "dropped";
  return "s" + String(status)[0] + "xx";
}

async function control(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch("/__mock/" + path, init);
  if (!response.ok) {
    const text = await response.text();
    $("message").textContent = method + " /__mock/" + path + ": " + response.status + " " + text;
    throw new Error(text);
  }
  $("message").textContent = "";
  return response.status === 204 ? null : response.json();
}

async function poll() {
  try {
    const page = await control("GET", "rows?after=" + seq);
    if (page.clears !== clears) {
      const first = clears === -1;
      clears = page.clears;
      if (!first) {
        // Cleared (or reset) since the last look: start over.
        rows.length = 0;
        seq = 0;
        selected = null;
        renderDetail();
        renderTable();
        return poll();
      }
    }
    for (const row of page.rows) rows.push(row);
    seq = page.seq;
    if (page.rows.length > 0) {
      renderOperations();
      renderTable();
    }
  } catch (error) {
    $("message").textContent = "The mock does not answer: " + error.message;
  }
}

function shown() {
  const operation = $("filter-operation").value;
  const status = $("filter-status").value;
  return rows.filter((row) =>
    (operation === "" || row.operation === operation) &&
    (status === "" || statusClass(row.status ?? 0) === status)
  ).reverse();
}

function renderOperations() {
  const select = $("filter-operation");
  const known = new Set([...select.options].map((option) => option.value));
  for (const row of rows) {
    const operation = row.operation;
    if (operation !== null && !known.has(operation)) {
      known.add(operation);
      select.append(el("option", { value: operation }, operation));
    }
  }
}

function renderTable() {
  const body = $("journal-rows");
  const list = shown();
  body.replaceChildren(...list.map((entry) => {
    const status = entry.status ?? 0;
    const row = el(
      "tr",
      { "data-seq": entry.seq, class: selected !== null && entry.seq === selected._seq ? "selected" : "" },
      el("td", { class: "num" }, entry.seq),
      el("td", {}, entry.time.slice(11, 23)),
      el("td", { class: "method" }, entry.method),
      el("td", { class: "path", title: entry.target }, entry.target),
      el("td", { class: "status " + statusClass(status) }, status === 0 ? "dropped" : status),
      el("td", {}, entry.error_code ?? ""),
      el("td", { class: "num" }, entry.duration_ms + " ms"),
      el("td", {}, entry.role ?? ""),
      el("td", { title: entry.project_id ?? "" }, (entry.project_id ?? "").slice(0, 8)),
      el("td", {}, entry.fault ?? ""),
    );
    row.addEventListener("click", () => open(entry.seq));
    return row;
  }));
  $("count").textContent = list.length + " of " + rows.length + " requests";
}

/** Fetches one request as HAR, and shows it. */
async function open(number) {
  const har = await control("GET", "journal.har?after=" + (number - 1) + "&limit=1");
  const entry = har.log.entries[0];
  if (entry === undefined || entry._seq !== number) return;
  selected = entry;
  renderTable();
  renderDetail();
}

function headerTable(headers) {
  return el("table", { class: "headers" }, ...headers.map((header) =>
    el("tr", {}, el("th", {}, header.name), el("td", {}, header.value))
  ));
}

function pretty(text, mimeType) {
  if (/json/i.test(mimeType || "")) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}

function validationDetail(text) {
  let detail;
  try {
    detail = JSON.parse(text).detail;
  } catch {
    return null;
  }
  if (!Array.isArray(detail)) return null;
  return el("table", { class: "detail" },
    el("tr", {}, el("th", {}, "loc"), el("th", {}, "msg"), el("th", {}, "type")),
    ...detail.map((item) => el("tr", {},
      el("td", {}, (item.loc || []).join(".")),
      el("td", {}, item.msg),
      el("td", {}, item.type),
    )));
}

/** The entries of a ZIP, read from its central directory. */
function zipEntries(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end -= 1;
  if (end < 0) return null;
  let count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const locator = end - 20;
  if (locator >= 0 && view.getUint32(locator, true) === 0x07064b50) {
    const record = Number(view.getBigUint64(locator + 8, true));
    count = Number(view.getBigUint64(record + 32, true));
    at = Number(view.getBigUint64(record + 48, true));
  }
  const entries = [];
  for (let i = 0; i < count && view.getUint32(at, true) === 0x02014b50; i += 1) {
    let size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (size === 0xffffffff) {
      let extra = at + 46 + nameLength;
      const stop = extra + extraLength;
      while (extra + 4 <= stop) {
        const id = view.getUint16(extra, true);
        if (id === 1) size = Number(view.getBigUint64(extra + 4, true));
        extra += 4 + view.getUint16(extra + 2, true);
      }
    }
    entries.push({ name, size });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function bodyView(content) {
  if (content.text === undefined) {
    return el("p", { class: "note" }, content.comment || (content.size === 0 ? "No body" : "Body not kept"));
  }
  if (content.encoding === "base64") {
    const entries = /zip/i.test(content.mimeType) ? zipEntries(content.text) : null;
    if (entries === null) return el("p", { class: "note" }, content.size + " bytes, binary");
    return el("div", {},
      el("p", { class: "note" }, "ZIP, " + content.size + " bytes, " + entries.length + " entries"),
      el("table", { class: "zip" },
        el("tr", {}, el("th", {}, "entry"), el("th", {}, "bytes")),
        ...entries.map((entry) => el("tr", {}, el("td", {}, entry.name), el("td", { class: "num" }, entry.size)))));
  }
  return el("pre", {}, pretty(content.text, content.mimeType));
}

function renderDetail() {
  const panel = $("detail");
  if (selected === null) {
    panel.replaceChildren(el("p", { class: "note" }, "Click a request to see it."));
    return;
  }
  const { request, response } = selected;
  const requestBody = request.postData === undefined
    ? el("p", { class: "note" }, "No body")
    : el("pre", {}, pretty(request.postData.text, request.postData.mimeType));
  const responseText = response.content.text;
  const detail = response.status === 422 && responseText !== undefined ? validationDetail(responseText) : null;
  panel.replaceChildren(...[
    el("h2", {}, request.method + " " + request.url),
    el("p", { class: "note" },
      [selected._operationId, selected._fault && "fault " + selected._fault, selected.startedDateTime]
        .filter(Boolean).join(" · ")),
    el("h3", {}, "Request"),
    headerTable(request.headers),
    requestBody,
    el("h3", {}, "Response ", el("span", { class: "status " + statusClass(response.status) },
      response.status === 0 ? "dropped" : response.status + " " + response.statusText)),
    response._error ? el("p", { class: "error" }, response._error) : null,
    headerTable(response.headers),
    detail === null ? null : el("h4", {}, "Validation errors"),
    detail,
    bodyView(response.content),
  ].filter((node) => node !== null));
}

async function refreshState() {
  try {
    const [state, faults] = await Promise.all([
      control("GET", "state"),
      control("GET", "faults"),
    ]);
    $("state-projects").replaceChildren(...state.projects.map((project) =>
      el("li", {}, project.name + " ", el("code", {}, project.project_id.slice(0, 8)))
    ));
    $("state-calls").textContent = state.calls.length;
    $("state-integrations").textContent = state.integrations.length;
    $("state-flows").textContent = state.flows.length;
    $("faults").replaceChildren(...faults.faults.map((fault) => {
      const button = el("button", { "data-fault": fault.id }, "Clear");
      button.addEventListener("click", () => control("DELETE", "faults/" + fault.id).then(refreshState));
      const effect = fault.status ?? (fault.drop_connection ? "drop" : fault.cut_after_bytes !== undefined ? "cut " + fault.cut_after_bytes : "delay " + fault.delay_ms + " ms");
      return el("li", {}, fault.id + ": " + (fault.operation ?? (fault.method ?? "") + " " + fault.path) + " → " + effect +
        (fault.remaining === null ? "" : " (" + fault.remaining + " left)") + " ", button);
    }));
    if (faults.faults.length === 0) $("faults").replaceChildren(el("li", { class: "note" }, "none"));
  } catch {
    // poll() says when the mock does not answer.
  }
}

async function start() {
  const document_ = await control("GET", "openapi.json");
  const operations = document_.components.schemas.FaultRule.properties.operation.enum;
  $("fault-operation").replaceChildren(...operations.map((operation) => el("option", { value: operation }, operation)));
  $("filter-operation").addEventListener("change", renderTable);
  $("filter-status").addEventListener("change", renderTable);
  $("clear-journal").addEventListener("click", () => control("DELETE", "requests").then(poll));
  $("reset").addEventListener("click", () => control("POST", "reset").then(() => Promise.all([poll(), refreshState()])));
  $("clear-faults").addEventListener("click", () => control("DELETE", "faults").then(refreshState));
  $("fault-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const rule = { operation: $("fault-operation").value, status: Number($("fault-status").value) };
    const times = $("fault-times").value;
    if (times !== "") rule.times = Number(times);
    control("POST", "faults", rule).then(refreshState);
  });
  renderDetail();
  await Promise.all([poll(), refreshState()]);
  let polling = false;
  setInterval(async () => {
    if (polling) return;
    polling = true;
    await poll();
    polling = false;
  }, 500);
  setInterval(refreshState, 2000);
}

start();
`;
