import Foundation

extension Database {
    /// A delete of `key` from the table of `registry` failed on a foreign key (SQLite says only
    /// "FOREIGN KEY constraint failed"): the error returned names the model, the key and the rows that hold
    /// it — those of tables whose foreign key points at it with RESTRICT or NO ACTION, directly or below
    /// rows the delete would cascade to. The error keeps SQLite's code, message (first), SQL and arguments.
    /// Found by read-only queries after the failed statement; when they find nothing, the error is as it was.
    func explainingForeignKeyFailure(_ error: DatabaseError, registry: TypeRegistry, key: SQLValue) -> DatabaseError {
        explainingForeignKeyFailure(error, registry: registry, subject: "\(registry.metadata.typeName) (key \(key))",
                                    clause: "WHERE " + registry.table.keyClause) { try registry.table.bindKey(key, to: $0, at: 1) }
    }

    /// ``explainingForeignKeyFailure(_:registry:key:)`` for a delete of the rows a clause selects
    /// (`deleteAll`): `clause` is the statement's own (`WHERE ...` or empty), its arguments spread as it ran.
    func explainingForeignKeyFailure(_ error: DatabaseError, registry: TypeRegistry, clause: String,
                                     arguments: [any ColumnValue]) -> DatabaseError {
        let subject = "rows of \(registry.metadata.typeName)" + (clause.isEmpty ? "" : " (\(clause))")
        return explainingForeignKeyFailure(error, registry: registry, subject: subject, clause: clause) { try $0.bind(arguments) }
    }

    /// The rows a delete would remove are `FROM <table> <clause>`, `bind` binding the clause's parameters
    /// (each query below holds the clause once).
    private func explainingForeignKeyFailure(_ error: DatabaseError, registry: TypeRegistry, subject: String, clause: String,
                                             bind: (Statement) throws -> Void) -> DatabaseError {
        let table = registry.table
        var holders: [String] = []
        // Each level is a set of rows: `FROM <table> <clause>`, the root's parameters bound once.
        func visit(_ parent: String, clause: String, depth: Int) {
            guard depth < 8, holders.count < 3 else { return }
            for fk in introspector.foreignKeys(referencing: parent) {
                let parentColumns = fk.to.isEmpty ? introspector.primaryKeyColumnNames(of: parent) : fk.to
                guard parentColumns.count == fk.from.count else { continue }
                let from = "(" + fk.from.map(SQL.quote).joined(separator: ", ") + ")"
                let rows = "WHERE \(from) IN (SELECT \(parentColumns.map(SQL.quote).joined(separator: ", ")) FROM \(SQL.quote(parent)) \(clause))"
                switch fk.onDelete {
                case "CASCADE":
                    visit(fk.child, clause: rows, depth: depth + 1)
                case "RESTRICT", "NO ACTION":
                    guard let count = countRows("SELECT count(*) FROM \(SQL.quote(fk.child)) \(rows)", bind: bind),
                          count > 0 else { continue }
                    holders.append("\(count) row(s) of \"\(fk.child)\" through (\(fk.from.joined(separator: ", "))) ON DELETE \(fk.onDelete)"
                                   + (parent.sqlNameEquals(table.table) ? "" : " (below rows of \"\(parent)\" the delete would cascade to)"))
                default:
                    continue
                }
                if holders.count >= 3 { return }
            }
        }
        visit(table.table, clause: clause, depth: 0)
        guard !holders.isEmpty else { return error }
        let message = "\(error.message): deleting \(subject), still referenced by " + holders.joined(separator: "; ")
            + ". Delete or repoint those rows first, or declare the reference with onDelete: .cascade or .setNull"
        return DatabaseError(code: error.code, message: message, sql: error.sql, arguments: error.arguments,
                             argumentsArePublic: error.argumentsArePublic, sqlState: error.sqlState)
    }

    /// The count a `SELECT count(*)` whose parameters are the root clause's finds; nil when it fails.
    private func countRows(_ sql: String, bind: (Statement) throws -> Void) -> Int64? {
        guard let statement = try? connection.prepare(sql) else { return nil }
        defer { statement.finalize() }
        guard (try? bind(statement)) != nil, (try? statement.step()) == true else { return nil }
        return statement.int64(at: 0)
    }
}
