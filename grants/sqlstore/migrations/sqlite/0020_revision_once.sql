-- 0020_revision_once (SQLite): every change to a row's content counts exactly once,
-- whatever SQL writes it (SPEC GRANT-4), so a Store may trust an unchanged control
-- revision to mean unchanged rows and answer from its cache.
--
-- 0019 let an UPDATE that set revision to the current control revision change a row's
-- principal, tool, scopes or effect uncounted. Now only an UPDATE that changes nothing
-- but the revision, to the current control revision, goes uncounted: the triggers' own
-- stamp of a row. The triggers also find the row by rowid and check the control row by
-- the count of the increment, one lookup each instead of two.
-- SQLite upserts fire only the AFTER UPDATE trigger when they conflict and nothing on
-- DO NOTHING; INSERT OR REPLACE counts once, as its insert.

DROP TRIGGER tool_grants_insert;
DROP TRIGGER tool_grants_update;
DROP TRIGGER tool_grants_delete;

CREATE TRIGGER tool_grants_insert AFTER INSERT ON tool_grants
BEGIN
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    SELECT RAISE(ABORT, 'control revision missing') WHERE changes() = 0;
    UPDATE tool_grants SET revision = (SELECT revision FROM control_revisions WHERE name = 'model_grants')
    WHERE rowid = NEW.rowid
        AND revision IS NOT (SELECT revision FROM control_revisions WHERE name = 'model_grants');
END;

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
END;

CREATE TRIGGER tool_grants_delete AFTER DELETE ON tool_grants
BEGIN
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    SELECT RAISE(ABORT, 'control revision missing') WHERE changes() = 0;
END;
