-- 0023_trigger_search_path (PostgreSQL): the trigger functions name their tables
-- unqualified, so they resolved them by the search_path of the session writing: a write
-- to this schema's tool_grants from a session whose search_path lists another schema
-- holding these tables first was counted in that schema's control revision, not in this
-- one's, and a Store here kept answering a grant revoked so. Each function of a trigger
-- on the store's tables now runs with search_path set to the schema holding tool_grants
-- (pg_temp last, so that no temporary table stands in for them).
DO $$
DECLARE
    home TEXT := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.oid = 'tool_grants'::regclass);
    f TEXT;
BEGIN
    FOR f IN SELECT DISTINCT t.tgfoid::regprocedure::text FROM pg_trigger t
        WHERE NOT t.tgisinternal AND t.tgrelid IN ('tool_grants'::regclass,
            'tool_grants_deleted'::regclass, 'tool_grants_deleted_floor'::regclass) LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, home);
    END LOOP;
END;
$$;
