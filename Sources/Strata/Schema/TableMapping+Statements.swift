// A table mapping's statements: binding and reading keys in their stored form, and the cached INSERT, UPDATE,
// lookup, IN-list and range statements built once per column set (their SQL spelled through the
// connection's dialect where engines differ).
extension TableMapping {
    /// Binds a key (one value; a ``CompositeKey``'s spelling for a composite key) to the parameters of
    /// ``keyClause`` from `index` on, each part in its column's format; returns the next index.
    @inline(__always)
    @discardableResult
    func bindKey(_ key: SQLValue, to statement: Statement, at index: Int32) throws -> Int32 {
        guard keyCount > 1 else {
            let stored = try storedKey(key)
            try statement.bind(stored, at: index)
            guard keyHasTwoForms else { return index + 1 }
            // The other form (a value that has none is bound twice).
            let forms = keyForms(ofStored: stored)
            try statement.bind(forms.count > 1 ? forms[1] : stored, at: index + 1)
            return index + 2
        }
        let parts = try CompositeKey(sqlValue: key).values
        for (i, part) in parts.prefix(keyCount).enumerated() {
            try statement.bind(formats[i] == .native ? part : try formats[i].stored(part), at: index + Int32(i))
        }
        return index + Int32(keyCount)
    }

    /// The key of the current row of a statement that selected ``keyColumnList`` first, as instances hold
    /// it: each part in Strata's encoding, a composite key as one ``CompositeKey`` value; nil when a part
    /// does not convert.
    func key(from statement: Statement) -> SQLValue? {
        var parts: [SQLValue] = []
        for i in 0..<keyCount {
            let stored = statement.value(at: Int32(i))
            guard let part = formats[i] == .native ? stored : try? formats[i].native(stored) else { return nil }
            parts.append(part)
        }
        return keyCount == 1 ? parts[0] : CompositeKey(values: parts).sqlValue
    }

    /// The quoted key columns, comma-separated (what `$PK` stands for).
    var keyColumnList: String { quotedNames.prefix(keyCount).joined(separator: ", ") }

    /// A key in Strata's native encoding as the key column stores it (a UUID key in a 32-hex column, say),
    /// for WHERE clauses.
    @inline(__always)
    func storedKey(_ key: SQLValue) throws -> SQLValue {
        formats[0] == .native ? key : try formats[0].stored(key)
    }

    /// The statements the library runs per row, kept in ``statements`` so the per-row paths do not look them
    /// up by their SQL text (hashing it) in the connection's cache.
    enum StatementKind: Int, CaseIterable {
        case insert, insertWithoutKey, delete, selectByKey, selectByRowID, maxRowID
    }

    /// One of the per-row statements, prepared on first use (through the connection's cache) and reset.
    @inline(__always)
    func statement(_ kind: StatementKind, in connection: Connection) throws -> Statement {
        if let statement = statements[kind.rawValue] {
            statement.reset()
            return statement
        }
        let statement = try connection.cachedStatement(sql(kind))
        statements[kind.rawValue] = statement
        return statement
    }

    /// The SQL of a per-row statement, built when it is first prepared (a first use builds none).
    private func sql(_ kind: StatementKind) -> String {
        let t = quotedTable, names = quotedNames
        switch kind {
        case .insert:
            // Every declared column (plus `RETURNING rowid` when the key is not the rowid).
            let returning = hasRowID && !keyIsRowID ? " RETURNING \(rowIDName)" : ""
            return "\(insertVerb) INTO \(t) (\(names.joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count)))\(returning)"
        case .insertWithoutKey:
            // Every column but the key, for keys SQLite assigns.
            return names.count == 1 ? "\(insertVerb) INTO \(t) DEFAULT VALUES"
                : "\(insertVerb) INTO \(t) (\(names.dropFirst().joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count - 1)))"
        case .delete: return "DELETE FROM \(t) WHERE \(keyClause)"
        case .selectByKey: return "SELECT \(selectColumns) FROM \(t) WHERE \(keyClause)"
        case .selectByRowID: return "SELECT \(selectColumns) FROM \(t) WHERE \(rowIDName) = ?"
        case .maxRowID: return "SELECT max(\(rowIDName)) FROM \(t)"
        }
    }

    /// `INSERT INTO t (...) VALUES (...) RETURNING <every property's column>[, rowid]` for the given
    /// properties: the general insert, for tables with generated columns or schema defaults, whose stored
    /// values the instance then takes.
    func insertStatement(_ columns: ColumnSet, in connection: Connection) throws -> Statement {
        let names = columns.indices.map { quotedNames[$0] }
        let returning = quotedNames.joined(separator: ", ") + (selectsRowID ? ", \(rowIDName)" : "")
        let sql = names.isEmpty ? "\(insertVerb) INTO \(quotedTable) DEFAULT VALUES RETURNING \(returning)"
            : "\(insertVerb) INTO \(quotedTable) (\(names.joined(separator: ", "))) VALUES (\(SQL.placeholders(names.count))) RETURNING \(returning)"
        let statement = try connection.cachedStatement(sql)
        statement.reset()
        return statement
    }

    /// `SELECT … WHERE column IN (?, … count)` [ORDER BY …], prepared once per column, length and order
    /// and found without hashing its (long) SQL text.
    func inStatement(column quotedColumn: String, count: Int, orderBy: String?, in connection: Connection) throws -> Statement {
        try inStatement(InStatementKey(column: quotedColumn, count: count, orderBy: orderBy), list: SQL.placeholders(count), in: connection)
    }

    /// `SELECT … WHERE column IN (SELECT +value FROM json_each(?))` [ORDER BY …]: any number of integer
    /// keys bound as one JSON array, so one statement serves every list length, with no SQL to parse per
    /// length and no variable limit to chunk under.
    func jsonInStatement(column quotedColumn: String, orderBy: String?, in connection: Connection) throws -> Statement {
        // `+value`: an expression with no affinity, so the column's own affinity applies to the keys, as it
        // does to a list of bound values (json_each's `value` column would compare as BLOB affinity).
        try inStatement(InStatementKey(column: quotedColumn, count: -1, orderBy: orderBy), list: "SELECT +value FROM " + connection.dialect.keyList(parameter: 1), in: connection)
    }

    /// `SELECT … FROM json_each(?) CROSS JOIN table ON key = +value`: the rows of distinct rowid keys bound
    /// as one JSON array, looked up key by key (CROSS JOIN keeps the array as the outer loop), without the
    /// temporary index an `IN (SELECT …)` builds of the keys first. Only for distinct keys of the rowid
    /// (a duplicate key would return its row twice); rows come in the keys' order.
    func jsonJoinStatement(in connection: Connection) throws -> Statement {
        let key = InStatementKey(column: quotedNames[0], count: -2, orderBy: nil)
        if !connection.preparesFresh, let statement = inStatements[key] {
            statement.reset()
            return statement
        }
        // An alias no table of the query can have (the mapped table's name is the only other one).
        let alias = quotedTable.lowercased() == #""strata_keys""# ? #""strata_keys_""# : #""strata_keys""#
        let sql = "SELECT \(selectColumns) FROM \(connection.dialect.keyList(parameter: 1)) AS \(alias) CROSS JOIN \(quotedFromTable) ON \(quotedTable).\(quotedNames[0]) = +\(alias).\"value\""
        let statement = try connection.cachedStatement(sql)
        // A fresh statement (an observed read: see `Connection.preparesFresh`) is not kept: the next
        // observed read must prepare it again for the authorizer to report its tables.
        if !connection.preparesFresh { inStatements[key] = statement }
        return statement
    }

    /// `SELECT … WHERE +column BETWEEN ? AND ?` [ORDER BY …]: a scan of the table (`+` keeps SQLite off any
    /// index of the column) for the rows of an integer column (``integerColumns``) between the least and
    /// the greatest of a list of keys, which the caller then tests against the list itself. For a column
    /// no index starts with, SQLite would scan for `IN (list)` too, and probe a temporary index of the list
    /// per row: about 900 instructions a row, where the caller's lookup costs a few.
    func rangeStatement(column quotedColumn: String, orderBy: String?, in connection: Connection) throws -> Statement {
        let key = InStatementKey(column: quotedColumn, count: -3, orderBy: orderBy)
        if !connection.preparesFresh, let statement = inStatements[key] {
            statement.reset()
            return statement
        }
        let sql = "\(selectFromSQL) WHERE +\(quotedColumn) BETWEEN ? AND ?" + (orderBy.map { " ORDER BY \($0)" } ?? "")
        let statement = try connection.cachedStatement(sql)
        // A fresh statement (an observed read: see `Connection.preparesFresh`) is not kept: the next
        // observed read must prepare it again for the authorizer to report its tables.
        if !connection.preparesFresh { inStatements[key] = statement }
        return statement
    }

    /// The `IN (list)` fetch for `key` (its count -1 for the JSON form), prepared on first use and reset.
    private func inStatement(_ key: InStatementKey, list: @autoclosure () -> String, in connection: Connection) throws -> Statement {
        if !connection.preparesFresh, let statement = inStatements[key] {
            statement.reset()
            return statement
        }
        let sql = "\(selectFromSQL) WHERE \(key.column) IN (\(list()))" + (key.orderBy.map { " ORDER BY \($0)" } ?? "")
        let statement = try connection.cachedStatement(sql)
        // A fresh statement (an observed read: see `Connection.preparesFresh`) is not kept: the next
        // observed read must prepare it again for the authorizer to report its tables.
        if !connection.preparesFresh { inStatements[key] = statement }
        return statement
    }

    /// `UPDATE t SET "a" = ?, "b" = ? WHERE key = ?` for the given properties (by index), prepared once
    /// per set of properties.
    func updateStatement(_ columns: ColumnSet, in connection: Connection) throws -> Statement {
        try unretainedUpdateStatement(columns, in: connection).takeUnretainedValue()
    }

    /// ``updateStatement(_:in:)`` unretained, for the save's hot path: valid while this mapping lives and
    /// prepares no other statement (`updates` holds it), which the caller's one use of it cannot change.
    @inline(__always)
    func unretainedUpdateStatement(_ columns: ColumnSet, in connection: Connection) throws -> Unmanaged<Statement> {
        if let last = lastUpdate, last.columns == columns { return last.statement }
        return Unmanaged.passUnretained(try otherUpdateStatement(columns, in: connection))
    }

    /// ``updateStatement(_:in:)`` for another set than the last one (out of line: a run of saves of one
    /// column keeps to the check above).
    @inline(never)
    private func otherUpdateStatement(_ columns: ColumnSet, in connection: Connection) throws -> Statement {
        let statement: Statement
        if let cached = updates[columns] {
            statement = cached
        } else {
            let assignments = columns.indices.map {
                rowLayoutColumns.contains($0) ? DateText.assignment(quotedNames[$0]) : "\(quotedNames[$0]) = ?"
            }.joined(separator: ", ")
            statement = try connection.cachedStatement("\(updateVerb) \(quotedTable) SET \(assignments) WHERE \(keyClause)")
            updates[columns] = statement
        }
        lastUpdate = (columns, Unmanaged.passUnretained(statement))
        return statement
    }
}
