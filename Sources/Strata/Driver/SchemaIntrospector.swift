/// Reads what a database holds: tables and views with their columns, keys, indices (with collation and
/// partial predicates), foreign keys and generated columns, as the engine-neutral ``TableInfo``.
///
/// Schema planning, the failure diagnoses and StrataTools (`inspect`, `diff`, `generate`) all read the
/// schema through this one piece of code; the SQLite one is ``SQLiteIntrospector``.
///
/// ```swift
/// let introspector = SQLiteIntrospector(connection)
/// for name in try introspector.tableNames() { print(try introspector.table(name)?.columns ?? []) }
/// ```
package protocol SchemaIntrospector {
    /// The names of the user tables and views, in the order the engine lists them.
    func tableNames() throws -> [String]
    /// One table or view, or nil when there is none of that name.
    func table(_ name: String) throws -> TableInfo?

    // MARK: Schema sync and failure diagnoses
    /// The index of a name, on whichever table (compared case-insensitively, as identifiers are); nil when
    /// there is none.
    func index(named name: String) throws -> CatalogIndex?
    /// The unique indices of `table` with their key parts; read on the error path only, so a read that
    /// fails gives what it found (empty when nothing could be read).
    func uniqueIndices(of table: String) -> [UniqueIndexKeys]
    /// The foreign keys of every table that point at `parent` (compared case-insensitively), one per
    /// constraint, by child table and key; empty when they cannot be read.
    func foreignKeys(referencing parent: String) -> [ReferencingKey]
    /// The primary key columns of `table`, in key order; empty when it has none or cannot be read.
    func primaryKeyColumnNames(of table: String) -> [String]
}

// MARK: Schema sync and failure diagnoses

/// An index as the catalog names it: its table, its `CREATE INDEX` statement (nil for a constraint's
/// automatic index) and its name as stored.
package struct CatalogIndex {
    package let table: String
    package let sql: String?
    package let name: String

    package init(table: String, sql: String?, name: String) {
        self.table = table; self.sql = sql; self.name = name
    }
}

/// A unique index of a table, as a constraint failure's diagnosis needs it: its key parts (a column, or nil
/// for an expression) with their collating sequences, whether it is partial, and its `CREATE INDEX`
/// statement (nil for a constraint's automatic index).
package struct UniqueIndexKeys {
    package let name: String
    package let partial: Bool
    package let sql: String?
    package let keys: [(column: String?, collation: String)]

    package init(name: String, partial: Bool, sql: String?, keys: [(column: String?, collation: String)]) {
        self.name = name; self.partial = partial; self.sql = sql; self.keys = keys
    }
}

/// A foreign key of a table (`child`) that points at another (or the same) table, one per constraint:
/// its columns, the parent's columns (empty: the parent's primary key) and its ON DELETE action, uppercased.
package struct ReferencingKey {
    package let child: String
    package let from: [String]
    package let to: [String]
    package let onDelete: String

    package init(child: String, from: [String], to: [String], onDelete: String) {
        self.child = child; self.from = from; self.to = to; self.onDelete = onDelete
    }
}
