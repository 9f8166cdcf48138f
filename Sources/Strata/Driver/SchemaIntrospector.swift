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
protocol SchemaIntrospector {
    /// The names of the user tables and views, in the order the engine lists them.
    func tableNames() throws -> [String]
    /// One table or view, or nil when there is none of that name.
    func table(_ name: String) throws -> TableInfo?
}
