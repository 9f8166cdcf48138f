// A unique or NOT NULL violation on an engine other than SQLite, as the same ``ModelError`` SQLite's gives:
// the engine names the violated constraint (`duplicate key value violates unique constraint "t_pkey"`) or
// the column (`null value in column "c" of relation "t"`), not the columns as SQLite does.
extension Database {
    /// ``duplicateKeyError(_:object:registry:)`` on the engine: the violated unique index's columns, and
    /// the key of the row that holds the object's values in them (looked up by those values when the
    /// transaction can still run a statement: a failed statement aborts an engine transaction). Read on
    /// the error path only.
    func remoteDuplicateKeyError<C: RemoteConnection>(_ remote: C, _ error: DatabaseError, object: ModelObject, registry: TypeRegistry) -> ModelError {
        let metadata = registry.metadata, table = registry.table
        /// The name the message quotes after `word` (`constraint "t_pkey"`, `column "c"`).
        func quoted(after word: String) -> String? {
            guard let start = error.message.range(of: word + " \"") else { return nil }
            let rest = error.message[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
        if error.code == .constraintNotNull {
            let column = quoted(after: "column") ?? ""
            let property = table.columns.firstIndex(of: column).map { metadata.properties[$0].name }
            return ModelError(.missingValue, model: metadata.typeName, property: property ?? column, properties: [property ?? column],
                              "column \"\(column)\" is NOT NULL and \(property.map { "property \"\($0)\"" } ?? "the model") has no value for it; set it before saving. Nothing was written. \(remote.engineName): \(error.message)")
        }
        let schema = try? remote.introspector()
        let index = quoted(after: "constraint").flatMap { name in schema?.uniqueIndices(of: table.table).first { $0.name == name } }
        var columns = index?.keys.compactMap(\.column) ?? []
        var existing: SQLValue?
        // (A failed statement aborts an engine transaction: no lookup can run in it.)
        if let index, !remote.transactionHasFailed {
            if let definition = index.sql,
               let lookup = remoteIndexLookup(definition, registry: registry, info: try? schema?.table(table.table)) {
                // An index of CREATE INDEX: looked up as it compares (expressions, collations, WHERE).
                columns = lookup.columns
                if let values = try? table.columns.indices.map({ try remoteValue(object, metadata.properties[$0], table.formats[$0], model: metadata.typeName) }) {
                    existing = try? remoteLookUpKey(remote, lookup.sql, values, registry: registry)
                }
            } else if !index.partial, !columns.isEmpty, columns.count == index.keys.count {
                // A constraint's index (UNIQUE, PRIMARY KEY): its columns compared as they are.
                let positions = columns.compactMap { table.columns.firstIndex(of: $0) }
                if positions.count == columns.count,
                   let values = try? positions.map({ try remoteValue(object, metadata.properties[$0], table.formats[$0], model: metadata.typeName) }) {
                    let condition = positions.map { "\(table.quotedNames[$0]) = ?" }.joined(separator: " AND ")
                    existing = try? remoteLookUpKey(remote, "SELECT \(table.quotedNames.prefix(table.keyCount).joined(separator: ", ")) FROM \(table.quotedTable) WHERE \(condition) LIMIT 1",
                                                    values, registry: registry)
                }
            }
        }
        let same = columns.isEmpty ? "values in constraint \"\(quoted(after: "constraint") ?? "")\"" : columns.joined(separator: ", ")
        return ModelError(.duplicateKey, model: metadata.typeName, key: existing, properties: columns,
                          "a row with the same \(same) exists already\(existing.map { " (key \($0))" } ?? ""); nothing was written. \(remote.engineName): \(error.message)")
    }

    /// The SELECT of the key of a row that holds, under a unique index's own definition (`CREATE UNIQUE
    /// INDEX … (lower(email), last COLLATE ci) WHERE …` as the engine prints it), what the object's values
    /// would put there; and the mapped columns the index reads. The object's mapped columns are bound as a
    /// row of their own (`v`, each cast to its column's type, in the mapping's order), over which each key
    /// part is computed as the index computes it. Nil when the definition cannot be read.
    private func remoteIndexLookup(_ definition: String, registry: TypeRegistry, info: TableInfo?) -> (sql: String, columns: [String])? {
        let table = registry.table
        let expressions = Self.keyExpressions(of: definition)
        guard !expressions.isEmpty, let info else { return nil }
        let predicate = Self.whereClause(of: definition)
        var compared: [String] = []
        for expression in expressions + [predicate].compactMap({ $0 }) {
            for token in SQLTokenizer.tokens(expression) {
                guard let name = token.identifier,
                      let column = table.columns.first(where: { $0 == name }) ?? table.columns.first(where: { $0.lowercased() == name.lowercased() }),
                      !compared.contains(column) else { continue }
                compared.append(column)
            }
        }
        var casts: [String] = []
        for column in table.columns {
            guard let type = info.column(named: column)?.declaredType, !type.isEmpty else { return nil }
            casts.append("CAST(? AS \(type)) AS \(SQL.quote(column))")
        }
        let terms = expressions.map { "(\($0)) = (SELECT \($0) FROM strata_values)" }
        let keys = table.quotedNames.prefix(table.keyCount).joined(separator: ", ")
        let sql = "WITH strata_values AS (SELECT \(casts.joined(separator: ", "))) SELECT \(keys) FROM \(table.quotedTable) WHERE "
            + terms.joined(separator: " AND ") + (predicate.map { " AND (\($0))" } ?? "") + " LIMIT 1"
        return (sql, compared)
    }

    /// The key of the first row `sql` selects (the key columns), `values` bound; nil when none.
    private func remoteLookUpKey<C: RemoteConnection>(_ remote: C, _ sql: String, _ values: [SQLValue], registry: TypeRegistry) throws -> SQLValue? {
        try mapped(remote) {
            let statement = try remote.cachedStatement(remote.engineSQL(sql))
            defer { statement.reset() }
            try statement.bind(values: values)
            guard try statement.step() else { return nil }
            let parts = (0..<registry.table.keyCount).map { statement.value(at: Int32($0)) }
            return parts.count == 1 ? parts[0] : CompositeKey(values: parts).sqlValue
        }
    }
}
