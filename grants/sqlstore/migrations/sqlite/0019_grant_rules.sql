-- 0019_grant_rules (SQLite): the schema enforces the grant row model, so plain SQL cannot
-- store a row a read would refuse (SPEC GRANT-1, GRANT-5), and triggers keep GRANT-4 for
-- every write. sqlstore.Migrate refuses to apply it while rows break the model.
-- SQLite cannot add a CHECK constraint to a table: the table is rebuilt, rows kept.

CREATE TABLE tool_grants_0019 (
    principal_id TEXT    NOT NULL CHECK (typeof(principal_id) = 'text' AND principal_id <> ''),
    tool_name    TEXT    NOT NULL CHECK (typeof(tool_name) = 'text' AND tool_name <> ''),
    -- scopes: scope tokens (printable ASCII but space, '"' and '\') joined by single spaces.
    -- length() in characters equals the length in bytes only for ASCII without NUL.
    scopes       TEXT    NOT NULL DEFAULT '' CHECK (typeof(scopes) = 'text' AND (scopes = '' OR (
                     length(scopes) = length(CAST(scopes AS BLOB)) AND
                     scopes NOT GLOB '*[^]!#-[^-~ ]*' AND scopes NOT GLOB ' *'
                     AND scopes NOT GLOB '* ' AND scopes NOT GLOB '*  *'))),
    effect       TEXT    NOT NULL CHECK (effect IN ('allow', 'deny')),
    revision     INTEGER NOT NULL DEFAULT 1 CHECK (typeof(revision) = 'integer' AND revision >= 1),
    PRIMARY KEY (principal_id, tool_name)
);

INSERT INTO tool_grants_0019 (principal_id, tool_name, scopes, effect, revision)
    SELECT principal_id, tool_name, scopes, effect, revision FROM tool_grants;

DROP TABLE tool_grants;

ALTER TABLE tool_grants_0019 RENAME TO tool_grants;

-- A scope may appear once in a row: a CHECK cannot count, so these triggers refuse it.
CREATE TRIGGER tool_grants_scopes_insert BEFORE INSERT ON tool_grants
WHEN NEW.scopes GLOB '* *'
BEGIN
    SELECT RAISE(ABORT, 'tool_grants: a scope appears twice in one row')
    WHERE (SELECT count(*) FROM json_each('["' || replace(NEW.scopes, ' ', '","') || '"]'))
       <> (SELECT count(DISTINCT value) FROM json_each('["' || replace(NEW.scopes, ' ', '","') || '"]'));
END;

CREATE TRIGGER tool_grants_scopes_update BEFORE UPDATE OF scopes ON tool_grants
WHEN NEW.scopes GLOB '* *'
BEGIN
    SELECT RAISE(ABORT, 'tool_grants: a scope appears twice in one row')
    WHERE (SELECT count(*) FROM json_each('["' || replace(NEW.scopes, ' ', '","') || '"]'))
       <> (SELECT count(DISTINCT value) FROM json_each('["' || replace(NEW.scopes, ' ', '","') || '"]'));
END;

-- GRANT-4: every inserted, updated or deleted row increments the control revision, and an
-- inserted or updated row takes the new control revision as its revision. An UPDATE that
-- only stamps the current control revision on a row (the triggers' own, or the upsert of
-- sqlstore.Store.Put) is not a second change.
CREATE TRIGGER tool_grants_insert AFTER INSERT ON tool_grants
BEGIN
    SELECT RAISE(ABORT, 'control revision missing')
    WHERE NOT EXISTS (SELECT 1 FROM control_revisions WHERE name = 'model_grants');
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    UPDATE tool_grants SET revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants')
    WHERE principal_id = NEW.principal_id AND tool_name = NEW.tool_name
        AND revision <> (SELECT revision FROM control_revisions WHERE name = 'model_grants');
END;

CREATE TRIGGER tool_grants_update AFTER UPDATE ON tool_grants
WHEN NOT (NEW.revision <> OLD.revision
    AND NEW.revision IS (SELECT revision FROM control_revisions WHERE name = 'model_grants'))
BEGIN
    SELECT RAISE(ABORT, 'control revision missing')
    WHERE NOT EXISTS (SELECT 1 FROM control_revisions WHERE name = 'model_grants');
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    UPDATE tool_grants SET revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants')
    WHERE principal_id = NEW.principal_id AND tool_name = NEW.tool_name
        AND revision <> (SELECT revision FROM control_revisions WHERE name = 'model_grants');
END;

CREATE TRIGGER tool_grants_delete AFTER DELETE ON tool_grants
BEGIN
    SELECT RAISE(ABORT, 'control revision missing')
    WHERE NOT EXISTS (SELECT 1 FROM control_revisions WHERE name = 'model_grants');
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
END;
