-- 0021_deleted_rows (SQLite): the triggers record every row that leaves a key (deleted,
-- or moved to another key by an UPDATE), so a Store holding a principal's Snapshot read
-- at revision R can bring it up to date by reading only the rows whose revision is above
-- R and the keys that left since R, whatever SQL wrote the changes (SPEC GRANT-4).
--
-- tool_grants_deleted holds one tombstone per row that left a key, at the control
-- revision of that change. Each such change takes a revision of its own, and the
-- triggers delete the tombstones 65,536 revisions or more older than the control
-- revision, so the table never holds more than 65,536 rows.
-- tool_grants_deleted_floor holds one revision: tombstones are kept for every change
-- above it. Deleting or updating a tombstone, by the pruning or by hand, raises it to
-- that tombstone's revision, and it never moves down; it starts at the control revision
-- of this migration (rows deleted before it left no tombstone). A Snapshot read below
-- the floor is brought up to date by a full read.

CREATE TABLE tool_grants_deleted (
    principal_id TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL,
    revision     INTEGER NOT NULL
);

CREATE INDEX tool_grants_deleted_principal ON tool_grants_deleted (principal_id, revision);

CREATE INDEX tool_grants_deleted_revision ON tool_grants_deleted (revision);

CREATE TABLE tool_grants_deleted_floor (
    revision INTEGER NOT NULL CHECK (typeof(revision) = 'integer' AND revision >= 0)
);

INSERT INTO tool_grants_deleted_floor (revision)
    SELECT coalesce((SELECT revision FROM control_revisions WHERE name = 'model_grants'), 1);

-- The rows of a principal changed since a revision, found without scanning its rows.
CREATE INDEX tool_grants_principal_revision ON tool_grants (principal_id, revision);

CREATE TRIGGER tool_grants_deleted_forget AFTER DELETE ON tool_grants_deleted
BEGIN
    UPDATE tool_grants_deleted_floor SET revision = OLD.revision WHERE revision < OLD.revision;
END;

CREATE TRIGGER tool_grants_deleted_rewrite AFTER UPDATE ON tool_grants_deleted
BEGIN
    UPDATE tool_grants_deleted_floor SET revision = OLD.revision WHERE revision < OLD.revision;
END;

CREATE TRIGGER tool_grants_deleted_floor_keep BEFORE UPDATE ON tool_grants_deleted_floor
WHEN NEW.revision < OLD.revision
BEGIN
    SELECT RAISE(ABORT, 'tool_grants_deleted_floor: the floor never moves down');
END;

-- 0020's update and delete triggers, each also writing the tombstone after counting the
-- change (so the tombstone takes the change's revision) and pruning.
DROP TRIGGER tool_grants_update;

DROP TRIGGER tool_grants_delete;

CREATE TRIGGER tool_grants_update AFTER UPDATE ON tool_grants
WHEN NOT (NEW.revision IS NOT OLD.revision
    AND NEW.principal_id IS OLD.principal_id AND NEW.tool_name IS OLD.tool_name
    AND NEW.scopes IS OLD.scopes AND NEW.effect IS OLD.effect
    AND NEW.revision IS (SELECT revision FROM control_revisions WHERE name = 'model_grants'))
BEGIN
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    SELECT RAISE(ABORT, 'control revision missing') WHERE changes() = 0;
    UPDATE tool_grants SET revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants')
    WHERE rowid = NEW.rowid
        AND revision IS NOT (SELECT revision FROM control_revisions WHERE name = 'model_grants');
    INSERT INTO tool_grants_deleted (principal_id, tool_name, revision)
        SELECT OLD.principal_id, OLD.tool_name, revision FROM control_revisions
        WHERE name = 'model_grants'
            AND (OLD.principal_id IS NOT NEW.principal_id OR OLD.tool_name IS NOT NEW.tool_name);
    DELETE FROM tool_grants_deleted
    WHERE (OLD.principal_id IS NOT NEW.principal_id OR OLD.tool_name IS NOT NEW.tool_name)
        AND revision <= (SELECT revision FROM control_revisions WHERE name = 'model_grants') - 65536;
END;

CREATE TRIGGER tool_grants_delete AFTER DELETE ON tool_grants
BEGIN
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    SELECT RAISE(ABORT, 'control revision missing') WHERE changes() = 0;
    INSERT INTO tool_grants_deleted (principal_id, tool_name, revision)
        SELECT OLD.principal_id, OLD.tool_name, revision FROM control_revisions WHERE name = 'model_grants';
    DELETE FROM tool_grants_deleted
    WHERE revision <= (SELECT revision FROM control_revisions WHERE name = 'model_grants') - 65536;
END;
