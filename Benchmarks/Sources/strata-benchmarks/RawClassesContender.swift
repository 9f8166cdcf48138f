// Contender "raw-classes" (issue 37): the raw contender's `sqlite3_step` loops, filling one plain
// `final class` per row (the same fields, no ORM) instead of a struct. What any object mapper must at
// least do per row: allocate an object, and free it later. Its objects are kept in an array; the fetch's
// time includes their release (as every contender's), the insert creates the objects then saves them,
// the update changes objects fetched outside the timed part.
import CSQLiteBench

extension PlainClassItem: CheckableItem {
    var checkID: Int64 { id }
}

enum RawClassesContender {
    /// Steps `statement` to the end, one PlainClassItem per row.
    static func readObjects(_ db: OpaquePointer, _ statement: OpaquePointer) throws -> [PlainClassItem] {
        var objects: [PlainClassItem] = []
        while true {
            let rc = sqlite3_step(statement)
            guard rc == SQLITE_ROW else {
                if rc == SQLITE_DONE { break }
                throw SQLiteC.error(db, rc, "fetch")
            }
            let object = PlainClassItem()
            object.id = sqlite3_column_int64(statement, 0)
            object.i0 = sqlite3_column_int64(statement, 1); object.i1 = sqlite3_column_int64(statement, 2)
            object.i2 = sqlite3_column_int64(statement, 3); object.i3 = sqlite3_column_int64(statement, 4)
            object.i4 = sqlite3_column_int64(statement, 5); object.i5 = sqlite3_column_int64(statement, 6)
            object.i6 = sqlite3_column_int64(statement, 7); object.i7 = sqlite3_column_int64(statement, 8)
            object.i8 = sqlite3_column_int64(statement, 9); object.i9 = sqlite3_column_int64(statement, 10)
            objects.append(object)
        }
        return objects
    }

    static func fetchAll(_ db: OpaquePointer) throws -> [PlainClassItem] {
        let statement = try SQLiteC.prepare(db, ItemTable.selectSQL)
        defer { sqlite3_finalize(statement) }
        return try readObjects(db, statement)
    }

    static func fetch(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw-classes")
        return try measureFetch({ try fetchAll(db) }) { try Verification.items($0, count: job.rows, "fetched plain classes") }
    }

    static func insert(_ job: Job) throws -> Duration {
        var db: OpaquePointer?
        defer { db.map(SQLiteC.close) }
        let (duration, objects) = try measure { () throws -> [PlainClassItem] in
            let handle = try SQLiteC.open(job.path)
            db = handle
            var objects: [PlainClassItem] = []
            objects.reserveCapacity(job.rows)
            for row in 0..<job.rows {
                let r = Int64(10 * row)
                let object = PlainClassItem()
                object.i0 = r; object.i1 = r + 1; object.i2 = r + 2; object.i3 = r + 3; object.i4 = r + 4
                object.i5 = r + 5; object.i6 = r + 6; object.i7 = r + 7; object.i8 = r + 8; object.i9 = r + 9
                objects.append(object)
            }
            try SQLiteC.exec(handle, "BEGIN")
            let insert = try SQLiteC.prepare(handle, ItemTable.insertSQL)
            defer { sqlite3_finalize(insert) }
            for object in objects {
                sqlite3_bind_int64(insert, 1, object.i0)
                sqlite3_bind_int64(insert, 2, object.i1)
                sqlite3_bind_int64(insert, 3, object.i2)
                sqlite3_bind_int64(insert, 4, object.i3)
                sqlite3_bind_int64(insert, 5, object.i4)
                sqlite3_bind_int64(insert, 6, object.i5)
                sqlite3_bind_int64(insert, 7, object.i6)
                sqlite3_bind_int64(insert, 8, object.i7)
                sqlite3_bind_int64(insert, 9, object.i8)
                sqlite3_bind_int64(insert, 10, object.i9)
                try RawContender.step(handle, insert, expect: SQLITE_DONE, "insert")
                sqlite3_reset(insert)
                object.id = sqlite3_last_insert_rowid(handle)
            }
            try SQLiteC.exec(handle, "COMMIT")
            return objects
        }
        try Verification.noMutex(db, "raw-classes")
        try Verification.items(objects, count: job.rows, idsInOrder: true, "inserted plain classes")
        try Verification.itemTable(at: job.path, count: job.rows, "inserted plain classes")
        return duration
    }

    static func update(_ job: Job) throws -> Duration {
        let db = try SQLiteC.open(job.path)
        defer { SQLiteC.close(db) }
        try Verification.noMutex(db, "raw-classes")
        let objects = try fetchAll(db)
        try Verification.items(objects, count: job.rows, "plain classes fetched for update")
        let (duration, _) = try measure {
            try SQLiteC.exec(db, "BEGIN")
            let update = try SQLiteC.prepare(db, ItemTable.updateSQL)
            defer { sqlite3_finalize(update) }
            for object in objects {
                object.i5 += Expected.updateDelta
                sqlite3_bind_int64(update, 1, object.i5)
                sqlite3_bind_int64(update, 2, object.id)
                try RawContender.step(db, update, expect: SQLITE_DONE, "update")
                sqlite3_reset(update)
            }
            try SQLiteC.exec(db, "COMMIT")
        }
        try Verification.items(objects, count: job.rows, updated: true, "updated plain classes")
        try Verification.itemTable(at: job.path, count: job.rows, updated: true, "updated plain classes")
        return duration
    }
}
