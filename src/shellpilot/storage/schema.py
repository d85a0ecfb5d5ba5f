"""The SQL schema of the session store (version in ``SCHEMA_VERSION``, kept in PRAGMA user_version).

Owns: table and index definitions. Must not touch: queries (store.py runs them).
Inline rather than a .sql file so it ships without package-data settings.
"""

SCHEMA_VERSION = 1

SCHEMA = """

CREATE TABLE IF NOT EXISTS session (
    id          TEXT PRIMARY KEY,
    project_dir TEXT NOT NULL,
    parent_id   TEXT REFERENCES session(id) ON DELETE CASCADE,
    title       TEXT NOT NULL DEFAULT '',
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    body        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_by_project ON session(project_dir, updated_ms);
CREATE INDEX IF NOT EXISTS session_by_parent ON session(parent_id);

CREATE TABLE IF NOT EXISTS message (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    role       TEXT NOT NULL,
    body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS message_by_session ON message(session_id, id);

-- owner: "pid:start" of the process that wrote a pending/running part, NULL otherwise;
-- a part whose owner is dead at open time was interrupted by a crash.
CREATE TABLE IF NOT EXISTS part (
    id         TEXT PRIMARY KEY,
    message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    status     TEXT,
    owner      TEXT,
    body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS part_by_message ON part(message_id, id);
CREATE INDEX IF NOT EXISTS part_by_session ON part(session_id, id);
CREATE INDEX IF NOT EXISTS part_live ON part(status) WHERE status IN ('pending', 'running');

-- A session being run by some process (loop or user shell): one row per busy session.
CREATE TABLE IF NOT EXISTS lease (
    session_id  TEXT PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    owner       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    acquired_ms INTEGER NOT NULL
);
"""
