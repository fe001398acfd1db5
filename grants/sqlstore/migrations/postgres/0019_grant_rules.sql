-- 0019_grant_rules (PostgreSQL): the schema enforces the grant row model, so plain SQL
-- cannot store a row a read would refuse (SPEC GRANT-1, GRANT-5), and a trigger keeps
-- GRANT-4 for every write. sqlstore.Migrate refuses to apply it while rows break the model.

ALTER TABLE tool_grants ALTER COLUMN principal_id SET NOT NULL;
ALTER TABLE tool_grants ALTER COLUMN tool_name SET NOT NULL;
ALTER TABLE tool_grants ALTER COLUMN scopes SET NOT NULL;
ALTER TABLE tool_grants ALTER COLUMN scopes SET DEFAULT '';
ALTER TABLE tool_grants ALTER COLUMN effect SET NOT NULL;
ALTER TABLE tool_grants ALTER COLUMN revision SET NOT NULL;
ALTER TABLE tool_grants ALTER COLUMN revision SET DEFAULT 1;

ALTER TABLE tool_grants ADD CONSTRAINT tool_grants_row_model
    CHECK (principal_id <> '' AND tool_name <> '' AND effect IN ('allow', 'deny') AND revision >= 1);

-- scopes: scope tokens (printable ASCII but space, '"' and '\') joined by single spaces,
-- each token once.
ALTER TABLE tool_grants ADD CONSTRAINT tool_grants_scope_tokens
    CHECK (scopes ~ '^([\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*)?$');
ALTER TABLE tool_grants ADD CONSTRAINT tool_grants_scopes_distinct
    CHECK (scopes !~ '(^| )([^ ]+) (.* )?\2( |$)');

-- GRANT-4: every inserted, updated or deleted row increments the control revision, and an
-- inserted or updated row takes the new control revision as its revision. An UPDATE that
-- only stamps the current control revision on a row (the DO UPDATE of an upsert whose
-- insert was already counted, as sqlstore.Store.Put does) is not a second change.
CREATE FUNCTION tool_grants_revise() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    control BIGINT;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        SELECT revision INTO control FROM control_revisions WHERE name = 'model_grants';
        IF NEW.revision <> OLD.revision AND NEW.revision = control THEN
            RETURN NEW;
        END IF;
    END IF;
    UPDATE control_revisions SET revision = revision + 1 WHERE name = 'model_grants'
        RETURNING revision INTO control;
    IF control IS NULL THEN
        RAISE EXCEPTION 'control revision missing';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    NEW.revision := control;
    RETURN NEW;
END;
$$;

CREATE TRIGGER tool_grants_revise BEFORE INSERT OR UPDATE OR DELETE ON tool_grants
    FOR EACH ROW EXECUTE FUNCTION tool_grants_revise();
