/**
 * The standalone mock's live page at `GET /__mock/`: the journal as a table
 * that fills as requests arrive, each request and answer in full, the state
 * and the faults in force, and buttons for the control API. Three small
 * files served by the control API (page, style, script), nothing from
 * elsewhere: the page's Content-Security-Policy allows only its own origin.
 *
 * @module
 */
import { PAGE_SCRIPT } from "./page_script.ts";

export { PAGE_SCRIPT } from "./page_script.ts";

/**
 * The headers of the page's files: no other origin may serve the page
 * anything, frame it, or be sent a form from it.
 */
export const PAGE_POLICY: string =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The page's files by path under `/__mock/`, with their media types.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PAGE_FILES } from "./page.ts";
 *
 * assert.match(PAGE_FILES[""]!.text, /<script src="\/__mock\/ui\.js" defer>/);
 * assert.equal(PAGE_FILES["ui.js"]!.type, "text/javascript; charset=utf-8");
 * ```
 */
export const PAGE_FILES: Readonly<
  Record<string, { type: string; text: string }>
> = {
  "": { type: "text/html; charset=utf-8", text: pageHtml() },
  "ui.css": { type: "text/css; charset=utf-8", text: pageStyle() },
  "ui.js": { type: "text/javascript; charset=utf-8", text: PAGE_SCRIPT },
};

function pageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>callflow-api mock</title>
<link rel="stylesheet" href="/__mock/ui.css">
<script src="/__mock/ui.js" defer></script>
</head>
<body>
<header>
  <h1>callflow-api mock</h1>
  <nav>
    <button id="clear-journal" type="button">Clear journal</button>
    <button id="reset" type="button">Reset state</button>
    <a id="download" href="/__mock/journal.har" download="journal.har">Download HAR</a>
  </nav>
  <p id="message" class="error" role="status"></p>
</header>
<main>
  <section id="requests">
    <div class="filters">
      <label>Operation <select id="filter-operation"><option value="">any</option></select></label>
      <label>Status <select id="filter-status">
        <option value="">any</option>
        <option value="s2xx">2xx</option>
        <option value="s3xx">3xx</option>
        <option value="s4xx">4xx</option>
        <option value="s5xx">5xx</option>
        <option value="dropped">dropped</option>
      </select></label>
      <span id="count" class="note"></span>
    </div>
    <table id="journal">
      <thead><tr><th>#</th><th>time (UTC)</th><th>method</th><th>path</th><th>status</th><th>error code</th><th>duration</th><th>role</th><th>project</th><th>fault</th></tr></thead>
      <tbody id="journal-rows"></tbody>
    </table>
    <div id="detail"></div>
  </section>
  <aside>
    <h2>State</h2>
    <dl>
      <dt>Projects</dt><dd><ul id="state-projects"></ul></dd>
      <dt>Calls</dt><dd id="state-calls"></dd>
      <dt>Integrations</dt><dd id="state-integrations"></dd>
      <dt>Flows</dt><dd id="state-flows"></dd>
    </dl>
    <h2>Faults</h2>
    <ul id="faults"></ul>
    <form id="fault-form">
      <label>Operation <select id="fault-operation"></select></label>
      <label>Status <input id="fault-status" type="number" min="400" max="599" value="503" required></label>
      <label>Times <input id="fault-times" type="number" min="1" placeholder="until cleared"></label>
      <button id="fault-set" type="submit">Set fault</button>
      <button id="clear-faults" type="button">Clear all faults</button>
    </form>
  </aside>
</main>
</body>
</html>
`;
}

function pageStyle(): string {
  return `:root { font: 14px/1.4 system-ui, sans-serif; color: #1d232a; background: #f6f7f9; }
body { margin: 0; }
header { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #1d232a; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
header nav { display: flex; gap: .5rem; }
header a, header button { font: inherit; padding: .25rem .6rem; border-radius: 4px; border: 1px solid #aab; background: #fff; color: #1d232a; text-decoration: none; cursor: pointer; }
main { display: grid; grid-template-columns: 1fr 20rem; gap: 1rem; padding: 1rem; }
aside { background: #fff; padding: .5rem 1rem; border-radius: 6px; align-self: start; }
aside h2 { font-size: 1rem; margin: .5rem 0; }
aside label { display: block; margin: .3rem 0; }
aside ul { padding-left: 1.2rem; margin: .2rem 0; }
dl { display: grid; grid-template-columns: auto 1fr; gap: .2rem .8rem; margin: 0; }
dd { margin: 0; }
.filters { display: flex; gap: 1rem; align-items: center; margin-bottom: .5rem; }
table { border-collapse: collapse; width: 100%; background: #fff; }
#journal th, #journal td { text-align: left; padding: .2rem .5rem; border-bottom: 1px solid #e3e6ea; white-space: nowrap; }
#journal tbody tr { cursor: pointer; }
#journal tbody tr:hover { background: #eef3fb; }
#journal tbody tr.selected { background: #dbe7fb; }
.path { font-family: ui-monospace, monospace; max-width: 24rem; overflow: hidden; text-overflow: ellipsis; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: 600; }
.s2xx { color: #17803d; } .s3xx { color: #1f5fbf; } .s4xx { color: #b45309; } .s5xx { color: #c0262d; } .dropped { color: #fff; background: #c0262d; }
#detail { margin-top: 1rem; background: #fff; padding: .5rem 1rem; border-radius: 6px; }
#detail h2 { font-size: 1rem; font-family: ui-monospace, monospace; word-break: break-all; }
#detail h3 { font-size: .95rem; margin: 1rem 0 .3rem; }
.headers th, .headers td, .detail th, .detail td, .zip th, .zip td { text-align: left; padding: .1rem .5rem; font-family: ui-monospace, monospace; font-size: .85rem; border-bottom: 1px solid #eef0f2; }
.headers th { color: #555; font-weight: normal; width: 14rem; }
pre { background: #f3f4f6; padding: .5rem; overflow: auto; max-height: 24rem; }
.note { color: #667; }
.error { color: #c0262d; }
header .error { color: #ffb4b4; margin: 0; }
`;
}
