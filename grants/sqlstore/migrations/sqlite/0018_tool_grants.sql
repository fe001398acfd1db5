-- 0018_tool_grants (SQLite): the grant rows and the control revision "model_grants".
-- Every statement is idempotent: running the file again changes nothing and keeps every
-- row, including rows edited since (SPEC GRANT-3). The compatibility rows (principal '*')
-- for the host's public tools are inserted by sqlstore.Migrate, only where absent.

CREATE TABLE IF NOT EXISTS control_revisions (
    name     TEXT    NOT NULL PRIMARY KEY,
    revision INTEGER NOT NULL CHECK (revision >= 1)
);

INSERT INTO control_revisions (name, revision) VALUES ('model_grants', 1)
    ON CONFLICT (name) DO NOTHING;

-- scopes: the row's scope tokens (RFC 6749 scope-token) joined by single spaces; '' for
-- none. Anything else is read as a malformed row and fails the read closed.
CREATE TABLE IF NOT EXISTS tool_grants (
    principal_id TEXT    NOT NULL CHECK (principal_id <> ''),
    tool_name    TEXT    NOT NULL CHECK (tool_name <> ''),
    scopes       TEXT    NOT NULL DEFAULT '',
    effect       TEXT    NOT NULL CHECK (effect IN ('allow', 'deny')),
    revision     INTEGER NOT NULL CHECK (revision >= 1),
    PRIMARY KEY (principal_id, tool_name)
);
