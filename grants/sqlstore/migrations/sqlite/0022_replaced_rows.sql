-- 0022_replaced_rows (SQLite): a tombstone also for the row an OR REPLACE removes because
-- an INSERT or UPDATE takes its rowid. SQLite removes such a row without firing the
-- delete trigger (unless recursive_triggers is on), so 0021 wrote no tombstone and a
-- delta read kept the removed row (SPEC GRANT-6).
-- The tombstone takes the revision the AFTER trigger of the same insert or update
-- counts next (control + 1). A tombstone of a key that still holds a row (the write
-- was ignored, or NEW.rowid of an INSERT without one is undefined) is never read.
-- Like 0021's, a trigger that writes a tombstone prunes those 65,536 revisions older.

CREATE TRIGGER tool_grants_insert_replaced BEFORE INSERT ON tool_grants
BEGIN
    INSERT INTO tool_grants_deleted (principal_id, tool_name, revision)
        SELECT g.principal_id, g.tool_name, c.revision + 1 FROM tool_grants g, control_revisions c
        WHERE g.rowid = NEW.rowid AND c.name = 'model_grants'
            AND (g.principal_id IS NOT NEW.principal_id OR g.tool_name IS NOT NEW.tool_name);
    DELETE FROM tool_grants_deleted
    WHERE changes() > 0
        AND revision <= (SELECT revision FROM control_revisions WHERE name = 'model_grants') + 1 - 65536;
END;

CREATE TRIGGER tool_grants_update_replaced BEFORE UPDATE ON tool_grants
WHEN NEW.rowid IS NOT OLD.rowid
BEGIN
    INSERT INTO tool_grants_deleted (principal_id, tool_name, revision)
        SELECT g.principal_id, g.tool_name, c.revision + 1 FROM tool_grants g, control_revisions c
        WHERE g.rowid = NEW.rowid AND c.name = 'model_grants'
            AND (g.principal_id IS NOT NEW.principal_id OR g.tool_name IS NOT NEW.tool_name);
    DELETE FROM tool_grants_deleted
    WHERE changes() > 0
        AND revision <= (SELECT revision FROM control_revisions WHERE name = 'model_grants') + 1 - 65536;
END;
