// Contender 1: the SQLite C API by hand, reused prepared statements filling plain structs -- the
// practical limit the others are measured against.
import CSQLiteBench

enum RawContender {
    static let name = "raw"

    @inline(__always)
    static func step(_ db: OpaquePointer, _ statement: OpaquePointer, expect: Int32, _ what: StaticString) throws {
        let rc = sqlite3_step(statement)
        guard rc == expect else { throw SQLiteC.error(db, rc, "\(what)") }
    }

    /// Steps `statement` to the end, one PlainItem per row.
    static func readItems(_ db: OpaquePointer, _ statement: OpaquePointer) throws -> [PlainItem] {
        var items: [PlainItem] = []
        while true {
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_ROW else {
                if rc == SQLITE_DONE { break }
                throw SQLiteC.error(db, rc, "fetch")
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

    static func fetchAll(_ db: OpaquePointer) throws -> [PlainItem] {
        let statement = try SQLiteC.prepare(db, ItemTable.selectSQL)
        defer { sqlite3_finalize(statement) }
        return try readItems(db, statement)
    }

    // MARK: Workloads

    static func fetch(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw")
        return try measureFetch({ try fetchAll(db) }) { try Verification.items($0, count: job.rows, "fetched structs") }
    }

    static func insert(_ job: Job) throws -> Duration {
        var db: OpaquePointer?
        defer { db.map(SQLiteC.close) }
        let (duration, items) = try measure { () throws -> [PlainItem] in
            let handle = try SQLiteC.open(job.path)
            db = handle
            var items: [PlainItem] = []
            items.reserveCapacity(job.rows)
            for row in 0..<job.rows {
                let r = Int64(10 * row)
                items.append(PlainItem(i0: r, i1: r + 1, i2: r + 2, i3: r + 3, i4: r + 4,
                                       i5: r + 5, i6: r + 6, i7: r + 7, i8: r + 8, i9: r + 9))
            }
            try SQLiteC.exec(handle, "BEGIN")
            let insert = try SQLiteC.prepare(handle, ItemTable.insertSQL)
            defer { sqlite3_finalize(insert) }
            for index in items.indices {
                let item = items[index]
                sqlite3_bind_int64(insert, 1, item.i0)
                sqlite3_bind_int64(insert, 2, item.i1)
                sqlite3_bind_int64(insert, 3, item.i2)
                sqlite3_bind_int64(insert, 4, item.i3)
                sqlite3_bind_int64(insert, 5, item.i4)
                sqlite3_bind_int64(insert, 6, item.i5)
                sqlite3_bind_int64(insert, 7, item.i6)
                sqlite3_bind_int64(insert, 8, item.i7)
                sqlite3_bind_int64(insert, 9, item.i8)
                sqlite3_bind_int64(insert, 10, item.i9)
                try step(handle, insert, expect: SQLITE_DONE, "insert")
                sqlite3_reset(insert)
                items[index].id = sqlite3_last_insert_rowid(handle)
            }
            try SQLiteC.exec(handle, "COMMIT")
            return items
        }
        try Verification.noMutex(db, "raw")
        try Verification.items(items, count: job.rows, idsInOrder: true, "inserted structs")
        try Verification.itemTable(at: job.path, count: job.rows, "inserted structs")
        return duration
    }

    static func update(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw")
        var items = try fetchAll(db)
        try Verification.items(items, count: job.rows, "structs fetched for update")
        let (duration, _) = try measure {
            try SQLiteC.exec(db, "BEGIN")
            let update = try SQLiteC.prepare(db, ItemTable.updateSQL)
            defer { sqlite3_finalize(update) }
            for index in items.indices {
                items[index].i5 += Expected.updateDelta
                let item = items[index]
                sqlite3_bind_int64(update, 1, item.i5)
                sqlite3_bind_int64(update, 2, item.id)
                try step(db, update, expect: SQLITE_DONE, "update")
                sqlite3_reset(update)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
        try Verification.items(items, count: job.rows, updated: true, "updated structs")
        try Verification.itemTable(at: job.path, count: job.rows, updated: true, "updated structs")
        return duration
    }

    // MARK: Schema reads (reference for Strata's schema sync)

    struct ColumnInfo {
        var name: String
        var type: String
        var notNull: Bool
        var defaultSQL: String?
        var primaryKey: Int32
        var hidden: Int32
    }

    struct IndexInfo {
        var name: String
        var unique: Bool
        var origin: String
        var columns: [String]
    }

    /// What a schema planner reads per table: columns (table_xinfo), indices (index_list) and the
    /// columns of each index made by CREATE INDEX (index_info). Three reused statements.
    final class SchemaReader {
        let db: OpaquePointer
        let columns: OpaquePointer
        let indices: OpaquePointer
        let indexColumns: OpaquePointer

        init(_ db: OpaquePointer) throws {
            self.db = db
            columns = try SQLiteC.prepare(db, #"SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?)"#)
            indices = try SQLiteC.prepare(db, #"SELECT name, "unique", origin FROM pragma_index_list(?)"#)
            indexColumns = try SQLiteC.prepare(db, "SELECT name FROM pragma_index_info(?)")
        }

        deinit {
            sqlite3_finalize(columns)
            sqlite3_finalize(indices)
            sqlite3_finalize(indexColumns)
        }

        private static func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
            sqlite3_column_text(statement, column).map { String(cString: $0) }
        }

        func read(_ table: String) throws -> (columns: [ColumnInfo], indices: [IndexInfo]) {
            var columnInfos: [ColumnInfo] = []
            sqlite3_bind_text(columns, 1, table, -1, sqliteTransient)
            while true {
                let rc = sqlite3_step(columns)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw SQLiteC.error(db, rc, "table_xinfo") }
                columnInfos.append(ColumnInfo(
                    name: Self.text(columns, 0) ?? "", type: Self.text(columns, 1) ?? "",
                    notNull: sqlite3_column_int(columns, 2) != 0, defaultSQL: Self.text(columns, 3),
                    primaryKey: sqlite3_column_int(columns, 4), hidden: sqlite3_column_int(columns, 5)))
            }
            sqlite3_reset(columns)
            var indexInfos: [IndexInfo] = []
            sqlite3_bind_text(indices, 1, table, -1, sqliteTransient)
            while true {
                let rc = sqlite3_step(indices)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw SQLiteC.error(db, rc, "index_list") }
                indexInfos.append(IndexInfo(name: Self.text(indices, 0) ?? "", unique: sqlite3_column_int(indices, 1) != 0,
                                            origin: Self.text(indices, 2) ?? "", columns: []))
            }
            sqlite3_reset(indices)
            for index in indexInfos.indices where indexInfos[index].origin == "c" {
                sqlite3_bind_text(indexColumns, 1, indexInfos[index].name, -1, sqliteTransient)
                while sqlite3_step(indexColumns) == SQLITE_ROW {
                    indexInfos[index].columns.append(Self.text(indexColumns, 0) ?? "")
                }
                sqlite3_reset(indexColumns)
            }
            return (columnInfos, indexInfos)
        }
    }

    /// Reads the 50 tables' schema; returns how many lack the new column (expected: none).
    static func schemaInSync(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw")
        let versionBefore = try SchemaDatabase.schemaVersion(at: job.path)
        let (duration, stale) = try measure { () throws -> Int in
            let reader = try SchemaReader(db)
            var stale = 0
            for table in SchemaTables.names {
                let (columns, _) = try reader.read(table)
                if columns.isEmpty { throw SQLiteFailure(description: "table \(table) is missing") }
                if !columns.contains(where: { $0.name == SchemaTables.newColumn }) { stale += 1 }
            }
            return stale
        }
        try Verification.check(stale == 0, "\(stale) tables reported out of sync, expected 0")
        try Verification.check(try SchemaDatabase.schemaVersion(at: job.path) == versionBefore,
                               "the schema changed although every table was in sync")
        return duration
    }

    /// Per table, in its own transaction: reads the schema, adds the missing column.
    static func schemaAddColumn(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw")
        let (duration, _) = try measure {
            let reader = try SchemaReader(db)
            for (table, alter) in zip(SchemaTables.names, SchemaTables.addColumnSQL) {
                try SQLiteC.exec(db, "BEGIN IMMEDIATE")
                let (columns, _) = try reader.read(table)
                if columns.isEmpty { throw SQLiteFailure(description: "table \(table) is missing") }
                if !columns.contains(where: { $0.name == SchemaTables.newColumn }) {
                    try SQLiteC.exec(db, alter)
                }
                try SQLiteC.exec(db, "COMMIT")
            }
        }
        try verifyNewColumn(at: job.path)
        return duration
    }

    /// Every one of the 50 tables ends with the new column.
    static func verifyNewColumn(at path: String) throws {
        for (table, columns) in zip(SchemaTables.names, try SchemaDatabase.columns(at: path)) {
            try Verification.check(columns.last == SchemaTables.newColumn,
                                   "table \(table) has columns \(columns), expected a last column \(SchemaTables.newColumn)")
        }
    }
}
