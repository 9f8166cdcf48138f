import Foundation

extension Database {
    /// Runs SQL. Without arguments the text may hold several statements (a script); with arguments it
    /// is one statement whose `?` parameters take them in order. Writes show up in live model instances.
    ///
    /// ```swift
    /// try db.execute("CREATE TABLE a(x); CREATE TABLE b(y)")
    /// try db.execute("INSERT INTO a(x) VALUES (?)", 42)
    /// ```
    public func execute(_ sql: String, _ arguments: any ColumnValue...) throws {
        try execute(sql, arguments: arguments)
    }

    /// ``execute(_:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// try db.execute(sql, arguments: [1, "a"])
    /// ```
    public func execute(_ sql: String, arguments: [any ColumnValue]) throws {
        if let remote { return try remoteExecute(remote, sql, arguments: arguments) }
        defer { checkSchemaVersion() }
        models.changeCount &+= 1   // raw SQL may write rows the hook never reports (WITHOUT ROWID tables)
        if sql.range(of: "replace", options: .caseInsensitive) != nil { models.mayReplace = true }
        // `ROLLBACK TO` a savepoint of the raw SQL's own: SQLite's rollback hook does not report it.
        let mayRollBack = SQL.mentions(sql, "rollback")
        defer { if mayRollBack && isInTransaction { restoreLiveInstancesAfterPartialRollback() } }
        try raw {
            if arguments.isEmpty {
                try connection.execute(sql)
            } else {
                let (sql, arguments) = try ArgumentList.expand(sql, arguments, jsonPast: jsonListLimit)
                try statement(sql).run(arguments)
            }
        }
    }

    /// Runs raw SQL so that live model instances see what it wrote: a failed statement's reported changes
    /// are dropped, and afterwards updated rows are reloaded and deleted ones marked.
    private func raw<T>(_ body: () throws -> T) throws -> T {
        try checkTransactionIsOpen()
        let changesBefore = totalChanges
        defer {
            if totalChanges != changesBefore {
                refreshWithoutRowIDInstances()
                dropArraysOverJoinTablesWithoutRowID()
                connection.unreportedWrite = false   // bare statements' writes, and this one's: reloaded
                // The first rows of an empty table (keys in another tool's format) decide the formats that
                // awaited them; a failure leaves them awaiting, for the next write or commit.
                if formatsAwaitRows { try? redecideFormatsOfEmptyColumns() }
            }
            reconcileLiveInstances()
            // Raw SQL may have ended a transaction it began (a read-only one calls no commit hook).
            if models.transactionMerged && transactionDepth == 0 && !isInTransaction { models.transactionMerged = false }
        }
        return try guardingChanges(body)
    }

    /// The variable limit past which a collection argument of `IN (?)` binds as one JSON array; nil without
    /// JSON functions.
    var jsonListLimit: Int? { connection.hasJSONEach ? maximumArguments : nil }

    /// The cached statement for `sql` with `arguments` bound, collection arguments expanded first.
    func boundStatement(_ sql: String, _ arguments: [any ColumnValue]) throws -> Statement {
        let (sql, arguments) = try ArgumentList.expand(sql, arguments, jsonPast: jsonListLimit)
        let statement = try statement(sql)
        try statement.bind(arguments)
        return statement
    }

    /// Every row of a query, as column name -> value (FCModel's `resultDictionariesFromQuery`).
    ///
    /// ```swift
    /// let rows = try db.rows("SELECT * FROM note WHERE id > ?", 10)
    /// rows.first?["text"]  // .text("hello")
    /// ```
    public func rows(_ sql: String, _ arguments: any ColumnValue...) throws -> [Row] {
        try rows(sql, arguments: arguments)
    }

    /// ``rows(_:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// try db.rows(sql, arguments: args)
    /// ```
    public func rows(_ sql: String, arguments: [any ColumnValue]) throws -> [Row] {
        if let remote { return try remoteRows(remote, sql, arguments: arguments) }
        return try raw { try rowsNow(sql, arguments: arguments) }
    }

    private func rowsNow(_ sql: String, arguments: [any ColumnValue]) throws -> [Row] {
        let statement = try boundStatement(sql, arguments)
        defer { statement.reset() }
        let names = statement.columnNames
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(columnNames: names, values: (0..<statement.columnCount).map { statement.value(at: $0) }))
        }
        return rows
    }

    /// The first column of the first row, decoded; nil when there is no row or the value is NULL
    /// (FCModel's `firstValueFromQuery`).
    ///
    /// ```swift
    /// let count = try db.value(Int.self, "SELECT count(*) FROM note")  // Optional(3)
    /// ```
    public func value<T: ColumnValue>(_ type: T.Type, _ sql: String, _ arguments: any ColumnValue...) throws -> T? {
        try value(type, sql, arguments: arguments)
    }

    /// ``value(_:_:_:)`` with the arguments in an array.
    ///
    /// ```swift
    /// try db.value(Int.self, sql, arguments: args)
    /// ```
    public func value<T: ColumnValue>(_ type: T.Type, _ sql: String, arguments: [any ColumnValue]) throws -> T? {
        if let remote { return try remoteColumn(remote, type, sql, arguments: arguments, first: true).first }
        return try raw { try valueNow(type, sql, arguments: arguments) }
    }

    private func valueNow<T: ColumnValue>(_ type: T.Type, _ sql: String, arguments: [any ColumnValue]) throws -> T? {
        let statement = try boundStatement(sql, arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let value = statement.value(at: 0)
        if value.isNull { return nil }
        do { return try T(sqlValue: value) } catch let error as ValueConversionError {
            throw error.located(column: statement.columnName(at: 0))
        }
    }

    /// The first column of every row, decoded.
    ///
    /// ```swift
    /// let names = try db.column(String.self, "SELECT name FROM user")
    /// ```
    public func column<T: ColumnValue>(_ type: T.Type, _ sql: String, _ arguments: any ColumnValue...) throws -> [T] {
        if let remote { return try remoteColumn(remote, type, sql, arguments: arguments, first: false) }
        return try raw { try columnNow(type, sql, arguments: arguments) }
    }

    private func columnNow<T: ColumnValue>(_ type: T.Type, _ sql: String, arguments: [any ColumnValue]) throws -> [T] {
        let statement = try boundStatement(sql, arguments)
        defer { statement.reset() }
        var values: [T] = []
        while try statement.step() {
            do { values.append(try T(sqlValue: statement.value(at: 0))) } catch let error as ValueConversionError {
                throw error.located(column: statement.columnName(at: 0))
            }
        }
        return values
    }
}
