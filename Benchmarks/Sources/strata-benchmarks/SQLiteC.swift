// Thin helpers over the SQLite C API, for the raw contender and for the harness's untimed parts
// (building the databases of each workload, and verifying every contender's result).
import CSQLiteBench

/// The flags of the raw contender (and of the harness's own connections). GRDB (DatabaseQueue opens
/// through SerializedDatabase, which sets `threadingMode = .multiThread`) and Strata open with
/// NOMUTEX themselves; the harness checks it with ``SQLiteC/isNoMutex(_:)``.
let rawOpenFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE

/// SQLITE_TRANSIENT, which Swift does not import.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

struct SQLiteFailure: Error, CustomStringConvertible {
    let description: String
}

enum SQLiteC {
    static var version: String { String(cString: sqlite3_libversion()) }

    static func open(_ path: String) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, rawOpenFlags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteFailure(description: "cannot open \(path): \(message) (\(rc))")
        }
        return handle
    }

    static func close(_ handle: OpaquePointer) {
        sqlite3_close_v2(handle)
    }

    static func error(_ handle: OpaquePointer, _ rc: Int32, _ what: String) -> SQLiteFailure {
        SQLiteFailure(description: "\(what): \(String(cString: sqlite3_errmsg(handle))) (\(rc))")
    }

    static func exec(_ handle: OpaquePointer, _ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(handle, rc, sql) }
    }

    static func prepare(_ handle: OpaquePointer, _ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(handle, rc, sql) }
        return statement
    }

    /// True when the connection was opened without a connection mutex (multi-thread mode).
    static func isNoMutex(_ handle: OpaquePointer) -> Bool {
        sqlite3_db_mutex(handle) == nil
    }

    static func withDatabase<T>(_ path: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        let handle = try open(path)
        defer { close(handle) }
        return try body(handle)
    }

    static func int64(_ path: String, _ sql: String) throws -> Int64 {
        try withDatabase(path) { db in
            let statement = try prepare(db, sql)
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { throw error(db, sqlite3_errcode(db), sql) }
            return sqlite3_column_int64(statement, 0)
        }
    }
}

// MARK: - The item table

/// The raw contender's plain struct, also what the harness reads back to verify the database.
struct PlainItem: CheckableItem {
    var id: Int64 = 0
    var i0: Int64 = 0, i1: Int64 = 0, i2: Int64 = 0, i3: Int64 = 0, i4: Int64 = 0
    var i5: Int64 = 0, i6: Int64 = 0, i7: Int64 = 0, i8: Int64 = 0, i9: Int64 = 0

    var checkID: Int64 { id }
}

enum ItemTable {
    static let createSQL = """
        CREATE TABLE item(id INTEGER PRIMARY KEY, i0 INTEGER, i1 INTEGER, i2 INTEGER, i3 INTEGER, \
        i4 INTEGER, i5 INTEGER, i6 INTEGER, i7 INTEGER, i8 INTEGER, i9 INTEGER)
        """
    static let selectSQL = "SELECT id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item"
    static let insertSQL = "INSERT INTO item(i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// The update workload changes one column; hand-written code writes just that one (as Strata's
    /// dirty tracking does).
    static let updateSQL = "UPDATE item SET i5 = ? WHERE id = ?"

    /// Creates the item table with `rows` rows: row r (0-based) has id r+1 and column c holds 10*r + c.
    static func create(at path: String, rows: Int) throws {
        try SQLiteC.withDatabase(path) { db in
            try SQLiteC.exec(db, createSQL)
            guard rows > 0 else { return }
            try SQLiteC.exec(db, "BEGIN")
            let insert = try SQLiteC.prepare(db, "INSERT INTO item(id, i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            defer { sqlite3_finalize(insert) }
            for row in 0..<rows {
                sqlite3_bind_int64(insert, 1, Int64(row + 1))
                for column in 0..<10 {
                    sqlite3_bind_int64(insert, Int32(column + 2), Expected.value(row: row, column: column))
                }
                let rc = sqlite3_step(insert)
                guard rc == SQLITE_DONE else { throw SQLiteC.error(db, rc, "template insert") }
                sqlite3_reset(insert)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
    }

    /// Every row of the item table, in id order.
    static func readAll(at path: String) throws -> [PlainItem] {
        try SQLiteC.withDatabase(path) { db in
            let statement = try SQLiteC.prepare(db, selectSQL + " ORDER BY id")
            defer { sqlite3_finalize(statement) }
            var items: [PlainItem] = []
            while true {
                let rc = sqlite3_step(statement)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw SQLiteC.error(db, rc, "read back") }
                for column in 0..<11 where sqlite3_column_type(statement, Int32(column)) != SQLITE_INTEGER {
                    throw Verification.failure("a row of item holds a non-integer in column \(column)")
                }
                items.append(PlainItem(
                    id: sqlite3_column_int64(statement, 0),
                    i0: sqlite3_column_int64(statement, 1), i1: sqlite3_column_int64(statement, 2),
                    i2: sqlite3_column_int64(statement, 3), i3: sqlite3_column_int64(statement, 4),
                    i4: sqlite3_column_int64(statement, 5), i5: sqlite3_column_int64(statement, 6),
                    i6: sqlite3_column_int64(statement, 7), i7: sqlite3_column_int64(statement, 8),
                    i8: sqlite3_column_int64(statement, 9), i9: sqlite3_column_int64(statement, 10)))
            }
            return items
        }
    }
}

// MARK: - The schema-sync tables

enum SchemaDatabase {
    /// Builds a database with the 50 tables, from plain SQL (used when Strata's models are off).
    static func createFromSQL(at path: String, current: Bool) throws {
        try SQLiteC.withDatabase(path) { db in
            try SQLiteC.exec(db, "BEGIN")
            for sql in current ? SchemaTables.currentSQL : SchemaTables.oldSQL {
                try SQLiteC.exec(db, sql)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
    }

    /// For each of the 50 tables, its column names in order.
    static func columns(at path: String) throws -> [[String]] {
        try SQLiteC.withDatabase(path) { db in
            try SchemaTables.names.map { table in
                let statement = try SQLiteC.prepare(db, "SELECT name FROM pragma_table_xinfo(?)")
                defer { sqlite3_finalize(statement) }
                sqlite3_bind_text(statement, 1, table, -1, sqliteTransient)
                var names: [String] = []
                while sqlite3_step(statement) == SQLITE_ROW {
                    names.append(String(cString: sqlite3_column_text(statement, 0)))
                }
                return names
            }
        }
    }

    static func schemaVersion(at path: String) throws -> Int64 {
        try SQLiteC.int64(path, "PRAGMA schema_version")
    }
}
