-- The whole model of the API: projects own tokens, calls, integrations and
-- flows; a call owns its messages; an integration owns its HTTP tools and its
-- MCP tool cache. Every child row goes with its parent (ON DELETE CASCADE).

CREATE TABLE projects (
  project_id uuid PRIMARY KEY,
  name text NOT NULL
);

-- Bearer tokens, kept only as the lowercase hex SHA-256 of the token.
CREATE TABLE tokens (
  token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  project_id uuid NOT NULL REFERENCES projects ON DELETE CASCADE,
  role text NOT NULL
    CHECK (role IN ('owner', 'admin', 'member', 'viewer', 'billing'))
);
CREATE INDEX tokens_project_id ON tokens (project_id);

CREATE TABLE calls (
  call_id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects ON DELETE CASCADE,
  created_at timestamptz NOT NULL
);
-- recentCalls: newest first, ties by call_id.
CREATE INDEX calls_project_recent ON calls (project_id, created_at DESC, call_id);

-- One row per message, in transcript order. `body` is `json`, not `jsonb`:
-- json keeps the text exactly as written, so a message comes back verbatim.
CREATE TABLE call_messages (
  call_id uuid NOT NULL REFERENCES calls ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  body json NOT NULL,
  PRIMARY KEY (call_id, position)
);

CREATE TABLE integrations (
  integration_id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('mcp', 'http')),
  name text NOT NULL
);
CREATE INDEX integrations_project_id ON integrations (project_id);

-- The HTTP tools of an HTTP integration.
CREATE TABLE http_tools (
  tool_id uuid PRIMARY KEY,
  integration_id uuid NOT NULL REFERENCES integrations ON DELETE CASCADE,
  name text NOT NULL
);
CREATE INDEX http_tools_integration_id ON http_tools (integration_id);

-- The tool cache of an MCP integration: a table, so that clearing it is seen
-- by every instance of the service at once.
CREATE TABLE mcp_tool_cache (
  integration_id uuid NOT NULL REFERENCES integrations ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  tool json NOT NULL,
  PRIMARY KEY (integration_id, position)
);

-- `trigger` is `json` so that a webhook's sample payload keeps its key order.
CREATE TABLE flows (
  flow_id uuid PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects ON DELETE CASCADE,
  name text NOT NULL,
  trigger json NOT NULL
);
CREATE INDEX flows_project_id ON flows (project_id);
