// `@Siblings` on an engine other than SQLite (a ``RemoteConnection``, PostgreSQL's): the targets of every
// owner through the join table in one statement, the owners' keys bound as one array (`= ANY($1)`), as
// SQLite's path binds them as one JSON array. Adding and removing go through the handle's raw SQL (Siblings.swift).
extension Siblings {
    /// The targets of each owner (by the owner's key), and all of them in order: one statement.
    func remoteQuery(_ owners: [ModelObject], ownerMetadata: ModelMetadata, database: Database) throws
        -> (groups: [SQLValue: [Target]], all: [Target]) {
        guard let remote = database.remote else { return ([:], []) }
        return try remoteQuery(remote, owners, ownerMetadata: ownerMetadata, database: database)
    }

    private func remoteQuery<C: RemoteConnection>(_ remote: C, _ owners: [ModelObject], ownerMetadata: ModelMetadata,
                                                  database: Database) throws -> (groups: [SQLValue: [Target]], all: [Target]) {
        let targetRegistry = try checkedTargetRegistry(ownerMetadata: ownerMetadata, database: database)
        let table = targetRegistry.table
        var (groups, keys) = try ownerKeys(owners, ownerMetadata: ownerMetadata, folding: { $0 })
        guard !keys.isEmpty else { return (groups, []) }
        let t = SQL.quote(table.table), j = SQL.quote(joinTable)
        let from = "\(j).\(SQL.quote(fromColumn))"
        guard let condition = remote.dialect.anyKey(from, parameter: 1) else {
            throw DatabaseError(code: .misuse, message: "\(remote.engineName) has no key arrays: @Siblings through \"\(joinTable)\" cannot be loaded")
        }
        // The target's columns named unqualified (`id`, as Django's join table has one too) are the target's.
        let ordering = order.map { SQLTokenizer.qualifying($0, columns: table.columns, with: t) } ?? "\(t).\(SQL.quote(table.columns[0]))"
        let sql = "SELECT \(table.selectColumns), \(from) FROM \(t) JOIN \(j) ON \(j).\(SQL.quote(toColumn)) = \(t).\(SQL.quote(table.columns[0]))"
            + " WHERE \(condition) ORDER BY \(ordering)"
        // Owner keys bound as the join column stores them (a model mapping it may say), read back canonical.
        let fromFormat = try database.joinColumnFormat(table: joinTable, column: fromColumn, holding: ownerMetadata)
        let bound = fromFormat == .native ? keys : keys.map(fromFormat.storedKey)
        let ownerColumn = Int32(targetRegistry.metadata.properties.count)
        let ownerKeyForm = ownerMetadata.keyForm
        var all: [Target] = []
        try database.mapped(remote) {
            let statement = try remote.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(values: [remote.dialect.keyArray(bound)])
            while try statement.step() {
                // (Every object comes through Target's registry.)
                let target = unsafeDowncast(try database.remoteObject(from: statement, registry: targetRegistry), to: Target.self)
                groups[ownerKeyForm.canonical(statement.value(at: ownerColumn))]?.append(target)
                all.append(target)
            }
        }
        database.models.pruneRemoteRows()
        return (groups, all)
    }
}
