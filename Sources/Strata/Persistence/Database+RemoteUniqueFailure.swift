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
        let index = quoted(after: "constraint").flatMap { name in
            (try? remote.introspector())?.uniqueIndices(of: table.table).first { $0.name == name }
        }
        let columns = index?.keys.compactMap(\.column) ?? []
        var existing: SQLValue?
        let positions = columns.compactMap { table.columns.firstIndex(of: $0) }
        if let index, !index.partial, !columns.isEmpty, columns.count == index.keys.count, positions.count == columns.count,
           !remote.transactionHasFailed,
           let values = try? positions.map({ try remoteValue(object, metadata.properties[$0], table.formats[$0], model: metadata.typeName) }) {
            let keyColumns = table.quotedNames.prefix(table.keyCount).joined(separator: ", ")
            let condition = positions.map { "\(table.quotedNames[$0]) = ?" }.joined(separator: " AND ")
            existing = try? mapped(remote) {
                let statement = try remote.cachedStatement(remote.engineSQL("SELECT \(keyColumns) FROM \(table.quotedTable) WHERE \(condition) LIMIT 1"))
                defer { statement.reset() }
                try statement.bind(values: values)
                guard try statement.step() else { return nil }
                let parts = (0..<table.keyCount).map { statement.value(at: Int32($0)) }
                return parts.count == 1 ? parts[0] : CompositeKey(values: parts).sqlValue
            }
        }
        let same = columns.isEmpty ? "values in constraint \"\(quoted(after: "constraint") ?? "")\"" : columns.joined(separator: ", ")
        return ModelError(.duplicateKey, model: metadata.typeName, key: existing, properties: columns,
                          "a row with the same \(same) exists already\(existing.map { " (key \($0))" } ?? ""); nothing was written. \(remote.engineName): \(error.message)")
    }
}
