// `eraseDatabaseOnSchemaChange` for Swift migrations too (issue 36): a Swift closure has no checksum, so an
// edited one is noticed by what it makes (GRDB's way): the applied migrations run again on an in-memory
// database (on PostgreSQL in a scratch schema), and what they make there is compared with the file.
extension Migrator {
    /// Whether the migrations `db` records (and the `user_version` steps it reached), run again on an empty
    /// in-memory database (on PostgreSQL: in a scratch schema, ``remoteReplayMakesAnotherSchema(_:than:replay:)``), make a schema `db` lacks: a table, or a column of one, with another declared type,
    /// NOT NULL, default or key part, or an index, view or trigger whose statement differs. What `db` has
    /// beyond that is not compared: models add tables and columns on first use (automatic sync), so a
    /// migration's removal of something is not noticed. When the migrations fail on the empty database (a
    /// data migration that reads a table a model makes), nothing can be told: the file is kept.
    func migrationsMakeAnotherSchema(than db: Database, applied: [String: AppliedMigration], userVersion: Int) throws -> Bool {
        var replay = self
        replay.eraseDatabaseOnSchemaChange = false
        replay.allowsEditedMigrations = true
        replay.allowsUnknownMigrations = true
        replay.migrations = migrations.filter { migration in
            if case .userVersion(let version, _) = migration.body { return version <= userVersion }
            return applied[migration.id] != nil
        }
        if let remote = db.remote { return try remoteReplayMakesAnotherSchema(remote, than: db, replay: replay) }
        let memory = try Database()
        defer { try? memory.close() }
        do { try replay.migrate(memory) } catch { return false }
        let made = try memory.introspector.storedStatements().filter { $0.name != Migrator.tableName }
        let stored = Dictionary(try db.introspector.storedStatements().map { ("\($0.type) \($0.name.lowercased())", $0) },
                                uniquingKeysWith: { first, _ in first })
        for entry in made {
            guard let found = stored["\(entry.type) \(entry.name.lowercased())"] else { return true }
            guard entry.type == "table" else {
                if found.sql != entry.sql { return true }
                continue
            }
            guard let expected = try memory.introspector.table(entry.name), let actual = try db.introspector.table(found.name) else { return true }
            for column in expected.columns {
                guard let other = actual.column(named: column.name), other.declaredType == column.declaredType, other.notNull == column.notNull,
                      other.defaultSQL == column.defaultSQL, other.primaryKeyPosition == column.primaryKeyPosition else { return true }
            }
        }
        return false
    }
}
