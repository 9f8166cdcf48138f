import Dispatch
import Foundation
import Strata

// Other connections' writes reaching a pool's observations: statement-level triggers with transition
// tables that `pg_notify` the keys each statement wrote, installed and removed by Strata, and a listener
// beside the pool.

extension DatabasePool {
    /// Makes writes by other connections and processes to the tables of `types` reach this pool's
    /// `changes(of:)` streams and value observations (and those of every pool that listens, see
    /// ``listenForChangeNotifications()``), then starts listening.
    ///
    /// Strata installs, in the table's schema, one function (`strata_notify_changes`) and four
    /// statement-level triggers per table (`strata_notify_insert`, `_update`, `_delete`, `_truncate`),
    /// which send the keys of the rows each statement wrote on the channel `strata_changes`; PostgreSQL
    /// delivers them when the writing transaction commits, never when it rolls back. A statement that wrote
    /// too many rows for one notification (8,000 bytes), a composite key and TRUNCATE name the table only
    /// (``DatabaseChange/listsEveryRow`` is false). Such changes have no ``DatabaseChange/modelType`` and no
    /// `updatedProperties` (which columns another connection wrote is not known). Writes through this pool
    /// reach its streams from the writer as before, once. The triggers cost each writing statement one
    /// notification; ``removeChangeNotifications(for:)`` takes them away.
    ///
    /// ```swift
    /// let pool = try DatabasePool(postgresURL: url)
    /// try await pool.installChangeNotifications(for: [Order.self])
    /// for await change in pool.changes(of: Order.self) {
    ///     print("orders written anywhere:", change.insertedRowIDs, change.updatedRowIDs)
    /// }
    /// ```
    public func installChangeNotifications(for types: [any Model.Type]) async throws {
        let tables = types.map { $0.tableName }
        try await write { db in
            for type in types {
                func sync<T: Model>(_ type: T.Type) throws { _ = try db.syncSchema(type) }
                try sync(type)
            }
            try db.execute(Self.notifyFunctionSQL)
            for table in tables {
                let keys = try db.column(String.self, """
                    SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                    WHERE i.indrelid = to_regclass(?) AND i.indisprimary
                    """, PostgresDialect().quote(table))
                // The trigger's argument: the key column as the function selects it; none for a composite key.
                let argument = keys.count == 1 ? PostgresDialect().quote(keys[0]) : ""
                let literal = "'" + argument.replacingOccurrences(of: "'", with: "''") + "'"
                let quoted = PostgresDialect().quote(table)
                try db.execute("""
                    CREATE OR REPLACE TRIGGER strata_notify_insert AFTER INSERT ON \(quoted) REFERENCING NEW TABLE AS strata_new
                        FOR EACH STATEMENT EXECUTE FUNCTION strata_notify_changes(\(literal));
                    CREATE OR REPLACE TRIGGER strata_notify_update AFTER UPDATE ON \(quoted) REFERENCING NEW TABLE AS strata_new
                        FOR EACH STATEMENT EXECUTE FUNCTION strata_notify_changes(\(literal));
                    CREATE OR REPLACE TRIGGER strata_notify_delete AFTER DELETE ON \(quoted) REFERENCING OLD TABLE AS strata_old
                        FOR EACH STATEMENT EXECUTE FUNCTION strata_notify_changes(\(literal));
                    CREATE OR REPLACE TRIGGER strata_notify_truncate AFTER TRUNCATE ON \(quoted)
                        FOR EACH STATEMENT EXECUTE FUNCTION strata_notify_changes('');
                    """)
            }
        }
        try await listenForChangeNotifications()
    }

    /// Starts listening for the notifications of the triggers ``installChangeNotifications(for:)``
    /// installed (by this process or another): from now on other connections' commits to those tables
    /// reach this pool's streams and value observations. Listening twice does nothing; the listener (a
    /// connection and a thread of its own, never a cooperative one) stops when the pool closes.
    ///
    /// ```swift
    /// try await pool.listenForChangeNotifications()   // another service installed the triggers
    /// ```
    public func listenForChangeNotifications() async throws {
        // The writer's URL and backend process (whose notifications are its own commits).
        let (url, process) = try await write { db -> (String, Int32) in
            guard let connection = db.remote as? PostgresConnection else {
                throw DatabaseError(code: .misuse, message: "change notifications are PostgreSQL's: this pool runs on SQLite, whose observations hear every commit of the pool's writer")
            }
            return (connection.url, Int32(try db.value(Int.self, "SELECT pg_backend_pid()") ?? 0))
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    _ = try self.companion("postgres.listener") {
                        do {
                            return try PostgresChangeListener(url: url, pool: self, ownProcess: process)
                        } catch let error as PostgresError {
                            throw DatabaseError(code: .cannotOpen, message: "cannot listen for change notifications: \(error.message)",
                                                sqlState: error.sqlState ?? "08001")
                        }
                    }
                })
            }
        }
    }

    /// Removes the triggers ``installChangeNotifications(for:)`` installed on the tables of `types`
    /// (other connections' writes to them are no longer heard by anyone). The function stays; the
    /// listener goes on for the other tables.
    ///
    /// ```swift
    /// try await pool.removeChangeNotifications(for: [Order.self])
    /// ```
    public func removeChangeNotifications(for types: [any Model.Type]) async throws {
        let tables = types.map { $0.tableName }
        try await write { db in
            for table in tables {
                let quoted = PostgresDialect().quote(table)
                guard try db.value(Bool.self, "SELECT to_regclass(?) IS NOT NULL", quoted) == true else { continue }
                try db.execute(["insert", "update", "delete", "truncate"].map { "DROP TRIGGER IF EXISTS strata_notify_\($0) ON \(quoted)" }.joined(separator: "; "))
            }
        }
    }

    /// The triggers' function: the keys of the statement's rows as JSON (`[1, 2]`, `["a"]`), with the
    /// schema, table, operation and transaction, on the channel `strata_changes`; the table alone when the
    /// keys would not fit one notification.
    static let notifyFunctionSQL = """
        CREATE OR REPLACE FUNCTION strata_notify_changes() RETURNS trigger LANGUAGE plpgsql AS $strata$
        DECLARE keys json; payload text;
        BEGIN
            IF TG_ARGV[0] = '' OR TG_OP = 'TRUNCATE' THEN keys := NULL;
            ELSIF TG_OP = 'DELETE' THEN EXECUTE format('SELECT coalesce(json_agg(%s), ''[]'') FROM strata_old', TG_ARGV[0]) INTO keys;
            ELSE EXECUTE format('SELECT coalesce(json_agg(%s), ''[]'') FROM strata_new', TG_ARGV[0]) INTO keys;
            END IF;
            payload := json_build_object('s', TG_TABLE_SCHEMA, 't', TG_TABLE_NAME, 'o', TG_OP, 'x', txid_current(), 'k', keys)::text;
            IF octet_length(payload) > 7900 THEN
                payload := json_build_object('s', TG_TABLE_SCHEMA, 't', TG_TABLE_NAME, 'o', TG_OP, 'x', txid_current(), 'k', NULL)::text;
            END IF;
            PERFORM pg_notify('strata_changes', payload);
            RETURN NULL;
        END
        $strata$
        """
}
