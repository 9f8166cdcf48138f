/// Reads a SQLite database's schema (`sqlite_master` and the `pragma_*` table functions) into
/// ``TableInfo`` values, through the connection's schema catalog (read once per schema version).
/// (`package`: StrataTools reads the schema through it.)
///
/// ```swift
/// let introspector = SQLiteIntrospector(connection)
/// let info = try introspector.table("user")
/// ```
package struct SQLiteIntrospector: SchemaIntrospector {
    let connection: Connection

    init(_ connection: Connection) { self.connection = connection }

    package func tableNames() throws -> [String] {
        let catalog = try SchemaCatalog.current(in: connection)
        return catalog.tables.values.map(\.name).sorted()
    }

    package func table(_ name: String) throws -> TableInfo? {
        try TableInfo.read(name, in: connection, views: true)
    }
}
