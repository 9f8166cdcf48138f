extension DatabaseChange {
    /// The inserted rows, named in engine-neutral values: on SQLite each row's rowid as `.integer` (the same
    /// rows as ``insertedRowIDs``, SQLite's spelling); an engine without rowids names rows by primary key
    /// (an integer key in ``insertedRowIDs`` too; a composite key is not listed: see ``listsEveryRow``).
    ///
    /// ```swift
    /// let stream = db.observeChanges { changes in
    ///     for change in changes { print(change.table, change.insertedRows) }   // "item" [.integer(4)]
    /// }
    /// ```
    public var insertedRows: Set<SQLValue> { Set(insertedRowIDs.map(SQLValue.integer)).union(insertedKeys) }

    /// The updated rows (not counting rows also inserted), in engine-neutral values (see ``insertedRows``).
    ///
    /// ```swift
    /// for change in changes where !change.updatedRows.isEmpty {
    ///     print("updated in \(change.table):", change.updatedRows)
    /// }
    /// ```
    public var updatedRows: Set<SQLValue> { Set(updatedRowIDs.map(SQLValue.integer)).union(updatedKeys) }

    /// The deleted rows, in engine-neutral values (see ``insertedRows``).
    ///
    /// ```swift
    /// for change in changes where !change.deletedRows.isEmpty {
    ///     print("deleted from \(change.table):", change.deletedRows)
    /// }
    /// ```
    public var deletedRows: Set<SQLValue> { Set(deletedRowIDs.map(SQLValue.integer)).union(deletedKeys) }
}
