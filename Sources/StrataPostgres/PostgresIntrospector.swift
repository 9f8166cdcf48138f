import Foundation
import Strata

/// Reads a PostgreSQL schema (the connection's `current_schema()`) from `pg_catalog` into the
/// engine-neutral `TableInfo`: tables, views (and whether they take writes), columns with their types,
/// defaults, identity and generated columns, indices (unique, partial, expression, descending, with a
/// COLLATE clause), primary keys, foreign keys with their ON DELETE actions, and triggers.
///
/// The whole schema is read in **one** round trip when the introspector is made (one statement that
/// builds a JSON document from the catalogs), so a sync plans against one consistent snapshot: make a
/// new introspector after changing the schema.
///
/// Names compare exactly, as PostgreSQL compares quoted identifiers (Strata quotes every name); a name
/// that matches no relation exactly but exactly one when compared case-insensitively finds that one, so
/// a model named `Item` maps a table created unquoted as `item`.
///
/// ```swift
/// let connection = try PostgresConnection(url: "postgresql:///app?host=/run/pg")
/// let introspector = try PostgresIntrospector(connection)
/// for name in try introspector.tableNames() {
///     print(name, try introspector.table(name)?.columns.map(\.declaredType) ?? [])
/// }
/// ```
package struct PostgresIntrospector: SchemaIntrospector {
    /// The catalog as one snapshot.
    let catalog: PostgresCatalog

    /// Reads the schema of `connection`'s current schema (one statement).
    package init(_ connection: PostgresConnection) throws {
        catalog = try PostgresCatalog.read(connection)
    }

    package func tableNames() throws -> [String] {
        catalog.relations.map(\.name).sorted()
    }

    package func table(_ name: String) throws -> TableInfo? {
        guard let relation = catalog.relation(named: name) else { return nil }
        return catalog.tableInfo(relation)
    }

    package func index(named name: String) throws -> CatalogIndex? {
        let match = catalog.indices.first { $0.name == name }
            ?? catalog.indices.first { $0.name.lowercased() == name.lowercased() }
        guard let index = match, let table = catalog.relations.first(where: { $0.oid == index.table }) else { return nil }
        return CatalogIndex(table: table.name, sql: index.constraint == nil ? index.definition : nil, name: index.name)
    }

    package func uniqueIndices(of table: String) -> [UniqueIndexKeys] {
        guard let relation = catalog.relation(named: table) else { return [] }
        let names = catalog.columnNames(of: relation.oid)
        return catalog.indices.filter { $0.table == relation.oid && $0.unique }.map { index in
            UniqueIndexKeys(name: index.name, partial: index.partial, sql: index.constraint == nil ? index.definition : nil,
                            keys: index.keys.map { (column: $0 == 0 ? nil : names[$0], collation: "default") })
        }
    }

    package func foreignKeys(referencing parent: String) -> [ReferencingKey] {
        guard let relation = catalog.relation(named: parent) else { return [] }
        return catalog.foreignKeys.filter { $0.parent == relation.oid }.compactMap { key in
            guard let child = catalog.relations.first(where: { $0.oid == key.table }) else { return nil }
            return ReferencingKey(child: child.name, from: key.columns, to: key.parentColumns, onDelete: key.onDelete)
        }
    }

    package func primaryKeyColumnNames(of table: String) -> [String] {
        guard let relation = catalog.relation(named: table),
              let key = catalog.indices.first(where: { $0.table == relation.oid && $0.primary }) else { return [] }
        let names = catalog.columnNames(of: relation.oid)
        return key.keys.compactMap { names[$0] }
    }
}
