import Foundation

extension Database {
    /// The error for a UNIQUE or PRIMARY KEY violation: the model, the columns and the key of the row the
    /// write would duplicate; for a NOT NULL violation, the property that holds nil.
    ///
    /// The row is looked for as the violated index compares: with its collating sequences (an index
    /// `ON t(email COLLATE NOCASE)`), its WHERE (a partial index, Django's conditional `UniqueConstraint`),
    /// and its expressions (Django's `UniqueConstraint(Lower("email"))`, for which SQLite names only the
    /// index), evaluated over the object's values. Read on the error path only.
    func duplicateKeyError(_ error: DatabaseError, object: ModelObject, registry: TypeRegistry) -> ModelError {
        if let remote { return remoteDuplicateKeyError(remote, error, object: object, registry: registry) }
        let metadata = registry.metadata
        if error.code == .constraintNotNull {
            let column = constraintColumns(error.message, table: registry.table.table).first ?? ""
            let property = registry.table.columns.firstIndex { $0.sqlNameEquals(column) }.map { metadata.properties[$0].name }
            return ModelError(.missingValue, model: metadata.typeName, property: property ?? column, properties: [property ?? column],
                              "column \"\(column)\" is NOT NULL and \(property.map { "property \"\($0)\"" } ?? "the model") has no value for it; set it before saving. Nothing was written. SQLite: \(error.message)")
        }
        // SQLite says "UNIQUE constraint failed: t.a, t.b", or "UNIQUE constraint failed: index 'name'" for an
        // index over expressions.
        let list = error.message.components(separatedBy: "failed: ").last ?? ""
        let indexName = list.hasPrefix("index '") && list.hasSuffix("'") ? String(list.dropFirst(7).dropLast()) : nil
        var columns = indexName != nil ? [] : constraintColumns(error.message, table: registry.table.table)
        var existing: SQLValue?
        if let lookup = uniqueLookup(registry, columns: columns, indexName: indexName) {
            if indexName != nil { columns = lookup.columns }
            // One statement per index, not one OR of them: SQLite (3.40) answers `a = ?1 COLLATE NOCASE OR
            // a = ?1 COLLATE BINARY` with one search of the BINARY index, which misses 'ABC' for 'abc'.
            for condition in lookup.conditions where existing == nil {
                guard let statement = try? connection.prepare("SELECT \(registry.table.keyColumnList) FROM \(SQL.quote(metadata.tableName)) WHERE \(condition) LIMIT 1")
                else { continue }
                defer { statement.finalize() }
                if (try? bind(object, properties: registry.table.columns.indices.prefix(Int(statement.parameterCount)), to: statement, registry: registry)) != nil,
                   (try? statement.step()) == true {
                    existing = registry.table.key(from: statement)
                }
            }
        }
        let same = columns.isEmpty ? "values in index \"\(indexName ?? "")\"" : columns.joined(separator: ", ")
        return ModelError(.duplicateKey, model: metadata.typeName, key: existing, properties: columns,
                          "a row with the same \(same) exists already\(existing.map { " (key \($0))" } ?? ""); nothing was written. SQLite: \(error.message)")
    }

    /// The columns SQLite names in a constraint message ("UNIQUE constraint failed: t.a, t.b"), each
    /// after the table's name and a dot: split at ", t." rather than at every comma and dot, which a table
    /// or column name may hold.
    ///
    /// ```swift
    /// constraintColumns("UNIQUE constraint failed: a.b.c, d, a.b.e", table: "a.b")   // ["c, d", "e"]
    /// ```
    func constraintColumns(_ message: String, table: String) -> [String] {
        guard let start = message.range(of: "constraint failed: ") else { return [] }
        let list = message[start.upperBound...]
        let prefix = table + "."
        guard list.count > prefix.count, String(list.prefix(prefix.count)).sqlNameEquals(prefix) else {
            // (Not the table's: the old reading, at every comma and dot.)
            return list.components(separatedBy: ", ").compactMap { $0.split(separator: ".").last.map(String.init) }
        }
        var columns: [String] = []
        var rest = list.dropFirst(prefix.count)
        while let next = rest.range(of: ", " + prefix, options: .caseInsensitive) {
            columns.append(String(rest[..<next.lowerBound]))
            rest = rest[next.upperBound...]
        }
        columns.append(String(rest))
        return columns
    }

    /// The conditions that select the row a write would duplicate, the object's mapped columns bound as
    /// `?1`, `?2`, ... in the mapping's order (the row is any one's); and the columns they compare. The
    /// unique indices of the table over exactly `columns` (or the one named `indexName`) each give one; with
    /// none found (the rowid key has no index), the columns compared as they are.
    private func uniqueLookup(_ registry: TypeRegistry, columns: [String], indexName: String?) -> (conditions: [String], columns: [String])? {
        let mapped = registry.table.columns
        func parameter(_ column: String) -> String? {
            mapped.firstIndex { $0.sqlNameEquals(column) }.map { "?\($0 + 1)" }
        }
        // The object's values as a row of their own, for the expressions of an index to be evaluated over.
        let values = "(SELECT " + mapped.indices.map { "?\($0 + 1) AS \(SQL.quote(mapped[$0]))" }.joined(separator: ", ") + ")"
        var parts: [String] = [], compared: [String] = []
        for index in uniqueIndices(of: registry.metadata.tableName) {
            if let indexName {
                guard index.name == indexName else { continue }
            } else {
                guard index.keys.count == columns.count,
                      zip(index.keys, columns).allSatisfy({ $0.column?.sqlNameEquals($1) == true }) else { continue }
            }
            var terms: [String] = []
            for key in index.keys {
                let collation = " COLLATE " + SQL.quote(key.collation)
                if let column = key.column {
                    guard let parameter = parameter(column) else { terms = []; break }
                    terms.append("\(SQL.quote(column)) = \(parameter)\(collation)")
                    if !compared.contains(column) { compared.append(column) }
                } else {
                    guard let expression = key.expression else { terms = []; break }
                    terms.append("(\(expression)) = (SELECT \(expression) FROM \(values))\(collation)")
                    for token in SQLTokenizer.tokens(expression) {
                        guard let name = token.identifier, let column = mapped.first(where: { $0.sqlNameEquals(name) }),
                              !compared.contains(column) else { continue }
                        compared.append(column)
                    }
                }
            }
            guard !terms.isEmpty else { continue }
            parts.append("(" + terms.joined(separator: " AND ") + (index.predicate.map { " AND (\($0))" } ?? "") + ")")
        }
        if !parts.isEmpty { return (parts, indexName == nil ? columns : compared) }
        guard indexName == nil, !columns.isEmpty else { return nil }
        let terms = columns.compactMap { column in parameter(column).map { "\(SQL.quote(column)) = \($0)" } }
        return terms.count == columns.count ? ([terms.joined(separator: " AND ")], columns) : nil
    }

    /// The unique indices of `table`: their key parts (a column, or an expression's text from the CREATE
    /// INDEX statement) with collating sequences, and the WHERE of a partial one.
    private func uniqueIndices(of table: String) -> [(name: String, keys: [(column: String?, expression: String?, collation: String)], predicate: String?)] {
        var indices: [(name: String, keys: [(column: String?, expression: String?, collation: String)], predicate: String?)] = []
        for index in introspector.uniqueIndices(of: table) {
            let expressions = index.sql.map(Self.keyExpressions) ?? []
            let keys = index.keys.enumerated().map { position, key -> (column: String?, expression: String?, collation: String) in
                key.column != nil ? (key.column, nil, key.collation)
                    : (nil, position < expressions.count ? expressions[position] : nil, key.collation)
            }
            // A partial index whose WHERE cannot be read is left out: any row with the same values is not
            // necessarily the one it covers.
            let predicate = index.partial ? index.sql.flatMap(Self.whereClause) : nil
            if index.partial && predicate == nil { continue }
            indices.append((index.name, keys, predicate))
        }
        return indices
    }

    /// The key parts of a CREATE INDEX statement, as written, without ASC/DESC.
    static func keyExpressions(of sql: String) -> [String] {
        let tokens = SQLTokenizer.tokens(sql)
        guard let on = tokens.firstIndex(where: { $0.isKeyword("ON") }),
              let open = tokens[on...].firstIndex(where: { $0.isPunctuation("(") }) else { return [] }
        var parts: [[SQLToken]] = [[]], depth = 0
        for token in tokens[(open + 1)...] {
            if token.isPunctuation("(") { depth += 1 }
            if token.isPunctuation(")") {
                if depth == 0 { break }
                depth -= 1
            }
            if depth == 0 && token.isPunctuation(",") { parts.append([]); continue }
            parts[parts.count - 1].append(token)
        }
        return parts.map { part in
            var part = part
            while let last = part.last, last.kind == .space || last.isKeyword("ASC") || last.isKeyword("DESC") { part.removeLast() }
            return SQLTokenizer.text(part).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The text after the top-level WHERE of a CREATE INDEX statement, if it has one.
    static func whereClause(of sql: String) -> String? {
        let tokens = SQLTokenizer.tokens(sql)
        var depth = 0
        for (i, token) in tokens.enumerated() {
            if token.isPunctuation("(") { depth += 1 } else if token.isPunctuation(")") { depth -= 1 }
            guard depth == 0, token.isKeyword("WHERE") else { continue }
            let rest = tokens[(i + 1)...].map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
            let body = rest.hasSuffix(";") ? String(rest.dropLast()) : rest
            return body.isEmpty ? nil : body
        }
        return nil
    }
}
