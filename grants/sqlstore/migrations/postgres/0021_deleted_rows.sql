-- 0021_deleted_rows (PostgreSQL): the triggers record every row that leaves a key
-- (deleted, or moved to another key by an UPDATE), so a Store holding a principal's
-- Snapshot read at revision R can bring it up to date by reading only the rows whose
-- revision is above R and the keys that left since R, whatever SQL wrote the changes
-- (SPEC GRANT-4).
--
-- tool_grants_deleted holds one tombstone per row that left a key, at the control
-- revision of that change. Each such change takes a revision of its own, and the
-- trigger deletes the tombstones 65,536 revisions or more older than the control
-- revision, so the table never holds more than 65,536 rows.
-- tool_grants_deleted_floor holds one revision: tombstones are kept for every change
-- above it. Deleting or updating a tombstone, by the pruning or by hand, raises it to
-- that tombstone's revision, TRUNCATE of either table to the control revision, and it
-- never moves down; it starts at the control revision of this migration (rows deleted
-- before it left no tombstone). A Snapshot read below the floor is brought up to date
-- by a full read.

CREATE TABLE tool_grants_deleted (
    principal_id TEXT   NOT NULL,
    tool_name    TEXT   NOT NULL,
    revision     BIGINT NOT NULL
);

CREATE INDEX tool_grants_deleted_principal ON tool_grants_deleted (principal_id, revision);

CREATE INDEX tool_grants_deleted_revision ON tool_grants_deleted (revision);

CREATE TABLE tool_grants_deleted_floor (
    revision BIGINT NOT NULL CHECK (revision >= 0)
);

INSERT INTO tool_grants_deleted_floor (revision)
    SELECT coalesce((SELECT revision FROM control_revisions WHERE name = 'model_grants'), 1);

-- The rows of a principal changed since a revision, found without scanning its rows.
CREATE INDEX tool_grants_principal_revision ON tool_grants (principal_id, revision);

CREATE FUNCTION tool_grants_deleted_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tool_grants_deleted_floor SET revision = OLD.revision WHERE revision < OLD.revision;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tool_grants_deleted_forget AFTER UPDATE OR DELETE ON tool_grants_deleted
    FOR EACH ROW EXECUTE FUNCTION tool_grants_deleted_forget();

CREATE FUNCTION tool_grants_deleted_all() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tool_grants_deleted_floor f SET revision = c.revision
    FROM control_revisions c WHERE c.name = 'model_grants' AND f.revision < c.revision;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tool_grants_deleted_truncate AFTER TRUNCATE ON tool_grants_deleted
    FOR EACH STATEMENT EXECUTE FUNCTION tool_grants_deleted_all();

CREATE FUNCTION tool_grants_deleted_floor_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.revision < OLD.revision THEN
        RAISE EXCEPTION 'tool_grants_deleted_floor: the floor never moves down';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER tool_grants_deleted_floor_keep BEFORE UPDATE ON tool_grants_deleted_floor
    FOR EACH ROW EXECUTE FUNCTION tool_grants_deleted_floor_keep();

-- 0020's trigger function, also writing the tombstone of a deleted or moved row, at the
-- change's revision, and pruning.
CREATE OR REPLACE FUNCTION tool_grants_revise() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    control BIGINT;
    moved   BOOLEAN := TG_OP = 'DELETE';
BEGIN
    SELECT revision INTO control FROM control_revisions WHERE name = 'model_grants' FOR UPDATE;
    IF control IS NULL THEN
        RAISE EXCEPTION 'control revision missing';
    END IF;
    IF TG_OP = 'INSERT' AND EXISTS (SELECT 1 FROM tool_grants
            WHERE principal_id = NEW.principal_id AND tool_name = NEW.tool_name) THEN
        RETURN NEW;
    END IF;
    control := control + 1;
    UPDATE control_revisions SET revision = control WHERE name = 'model_grants';
    IF TG_OP = 'UPDATE' THEN
        moved := NEW.principal_id IS DISTINCT FROM OLD.principal_id
            OR NEW.tool_name IS DISTINCT FROM OLD.tool_name;
    END IF;
    IF moved THEN
        INSERT INTO tool_grants_deleted (principal_id, tool_name, revision)
            VALUES (OLD.principal_id, OLD.tool_name, control);
        DELETE FROM tool_grants_deleted WHERE revision <= control - 65536;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    NEW.revision := control;
    RETURN NEW;
END;
$$;

-- 0020's TRUNCATE count, also raising the floor: the rows it removes leave no tombstone.
CREATE OR REPLACE FUNCTION tool_grants_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    UPDATE tool_grants_deleted_floor f SET revision = c.revision
    FROM control_revisions c WHERE c.name = 'model_grants' AND f.revision < c.revision;
    RETURN NULL;
END;
$$;
