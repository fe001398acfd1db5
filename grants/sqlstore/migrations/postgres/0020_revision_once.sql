-- 0020_revision_once (PostgreSQL): every change to tool_grants counts exactly once,
-- whatever SQL writes it (SPEC GRANT-4), so a Store may trust an unchanged control
-- revision to mean unchanged rows and answer from its cache.
--
-- 0019 counted an upsert whose DO UPDATE left the revision alone twice (the BEFORE
-- INSERT and BEFORE UPDATE triggers both fire), an INSERT ... ON CONFLICT DO NOTHING that
-- changed nothing once, and let an UPDATE that set revision to the control revision
-- change a row uncounted. Now the trigger locks the control row first, so writers queue
-- there and what it reads next sees every write committed before; an INSERT whose key
-- already exists is not counted (it conflicts: DO UPDATE is then counted by the UPDATE
-- trigger, DO NOTHING changes nothing, a plain INSERT fails); every UPDATE and DELETE
-- counts once. TRUNCATE, which fires no row trigger, counts once.

CREATE OR REPLACE FUNCTION tool_grants_revise() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    control BIGINT;
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
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    NEW.revision := control;
    RETURN NEW;
END;
$$;

CREATE FUNCTION tool_grants_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants';
    RETURN NULL;
END;
$$;

CREATE TRIGGER tool_grants_truncate AFTER TRUNCATE ON tool_grants
    FOR EACH STATEMENT EXECUTE FUNCTION tool_grants_truncated();
