import Foundation

/// Named migrations that run once each, in the order registered, beside automatic schema sync: for the
/// changes no diff can infer (a column split in two, data backfilled, a format changed).
///
/// Each migration runs in its own IMMEDIATE transaction and is recorded in `strata_migrations`
/// (namespace, id, checksum of its SQL, applied-at) in that same transaction, so it either ran and is
/// recorded, or left nothing behind. Whether a migration is pending is checked again under that write lock,
/// so two processes migrating one file at once run each migration once. Swift closures, SQL text, `.sql` files from a folder and FCModel's
/// `PRAGMA user_version` steps mix in one migrator.
///
/// On PostgreSQL (`Database(postgresURL:)`) the same migrator runs each migration in its own transaction
/// too (DDL included: a failing migration leaves neither its tables nor its record), under a lock two
/// processes share (`pg_advisory_xact_lock`); `strata_migrations` lives in the connection's current
/// schema, with `applied_at` a `timestamptz`. Foreign keys cannot be turned off there: `.deferred` and
/// `.disabled` defer the constraints declared DEFERRABLE to the COMMIT (`SET CONSTRAINTS ALL DEFERRED`),
/// the others are checked as rows are written, and a violation fails the migration with
/// `.foreignKeyViolation`. `registerUserVersion` steps need SQLite and throw. A file marked
/// `-- strata: no-transaction` runs outside a transaction, but the server runs a several-statement text as
/// one implicit transaction: give a statement that refuses one (`CREATE INDEX CONCURRENTLY`) a file of
/// its own. `eraseDatabaseOnSchemaChange` notices edited SQL migrations, unknown ones and edited Swift ones
/// there too: the applied migrations run again in a scratch schema of the same database (created, then
/// dropped), on a connection whose `search_path` is that schema alone.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register("v1-create", sql: "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT)")
/// migrator.register("v2-split-name") { db in
///     try db.execute("ALTER TABLE person ADD COLUMN lastName TEXT")
///     try db.execute("UPDATE person SET lastName = substr(name, instr(name, ' ') + 1)")
/// }
/// try migrator.migrate(db)        // then models sync additively on first use, as always
/// ```
///
/// Order with automatic sync: run the migrator first; each model then syncs on its first use. A
/// migration that needs a model's table as declared now calls `try db.syncSchema(Model.self)` itself.
public struct Migrator: Sendable {
    /// The namespace of migrators made without one.
    ///
    /// ```swift
    /// Migrator.defaultNamespace  // "main"
    /// ```
    public static let defaultNamespace = "main"
    /// The table Strata records applied migrations in.
    ///
    /// ```swift
    /// Migrator.tableName
    /// ```
    public static let tableName = "strata_migrations"

    /// Migrations of different namespaces (an app and a plugin) share one database without clashing.
    /// ```swift
    /// Migrator(namespace: "search-plugin").namespace
    /// ```
    public let namespace: String
    /// The registered migrations, in order.
    ///
    /// ```swift
    /// migrator.migrations.map(\.id)
    /// ```
    public internal(set) var migrations: [Migration] = []
    /// Runs a migration whose SQL changed after it ran, instead of throwing (development only: the
    /// edited migration does not run again).
    ///
    /// ```swift
    /// migrator.allowsEditedMigrations = true
    /// ```
    public var allowsEditedMigrations = false
    /// Accepts applied migrations this migrator does not know (a newer version of the app ran), instead
    /// of throwing.
    ///
    /// ```swift
    /// migrator.allowsUnknownMigrations = true
    /// ```
    public var allowsUnknownMigrations = false
    /// Erases the whole database and migrates from scratch when a migration changed or an unknown one
    /// was applied — for development, like GRDB's option of that name. Off by default: it deletes data.
    /// A Swift migration has no checksum: the applied migrations run again on an in-memory database (on
    /// PostgreSQL in a scratch schema of the same database, dropped afterwards), and
    /// when they make a table, column, index, view or trigger the file does not have as made, the file
    /// is erased (tables and columns the file has besides, which models add, are not compared).
    /// ```swift
    /// migrator.eraseDatabaseOnSchemaChange = true
    /// ```
    public var eraseDatabaseOnSchemaChange = false

    /// A migrator for `namespace`.
    ///
    /// ```swift
    /// var migrator = Migrator()
    /// ```
    public init(namespace: String = Migrator.defaultNamespace) {
        self.namespace = namespace
    }

    // MARK: Registering

    /// Registers a Swift migration. It may use raw SQL (for the past) and models as declared now.
    ///
    /// ```swift
    /// migrator.register("v3-backfill-slugs") { db in
    ///     for post in try db.objects(Post.self) { post.slug = post.title.lowercased(); try db.save(post) }
    /// }
    /// ```
    public mutating func register(_ id: String, foreignKeyChecks: ForeignKeyChecks = .deferred, inTransaction: Bool = true,
                                  _ body: @escaping @Sendable (Database) throws -> Void) {
        migrations.append(Migration(id: id, foreignKeyChecks: foreignKeyChecks, inTransaction: inTransaction, body: .swift(body)))
    }

    /// Registers an SQL migration (one or several statements); its checksum is recorded when it runs.
    ///
    /// ```swift
    /// migrator.register("0001_create", sql: "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT)")
    /// migrator.register("0009_vacuum", sql: "VACUUM", inTransaction: false)
    /// ```
    public mutating func register(_ id: String, sql: String, foreignKeyChecks: ForeignKeyChecks = .deferred, inTransaction: Bool = true) {
        migrations.append(Migration(id: id, foreignKeyChecks: foreignKeyChecks, inTransaction: inTransaction, body: .sql(sql)))
    }

    /// Registers every `.sql` file of `folder` (not hidden ones; `.SQL` in any case); the id is the name
    /// without its extension. Names that begin with a number run in the order of those numbers, compared as
    /// numbers (`2_seed.sql` before `10_index.sql`; the same number: by name); names without one, by name.
    /// A folder that mixes the two throws: their order would be a guess.
    /// A file may begin with directives, among its first comment lines: `-- strata: no-transaction`,
    /// `-- strata: foreign-keys immediate` or `-- strata: foreign-keys disabled`. All or nothing: a file
    /// that cannot be read, or has an unknown or late directive, throws and registers none of the folder.
    ///
    /// ```swift
    /// try migrator.registerSQLFiles(in: Bundle.module.resourceURL!.appendingPathComponent("Migrations"))
    /// ```
    public mutating func registerSQLFiles(in folder: URL) throws {
        // All or nothing: a file that cannot be read or has an unknown directive registers none of the folder.
        let registered = migrations
        do { try registerEachSQLFile(in: folder) } catch {
            migrations = registered
            throw error
        }
    }

    private mutating func registerEachSQLFile(in folder: URL) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.lowercased().hasSuffix(".sql") && !$0.hasPrefix(".") }   // not hidden files: an editor's lock or swap file
        } catch {
            throw MigrationError(migration: "-", namespace: namespace, reason: .failed, sql: nil, underlying: error,
                                 message: "cannot list the migrations folder \(folder.path): \(error.localizedDescription)")
        }
        for name in try MigrationFileOrder.ordered(names, namespace: namespace) {
            let file = folder.appendingPathComponent(name)
            func unreadable(_ why: String, _ underlying: (any Error)? = nil) -> MigrationError {
                MigrationError(migration: String(name.dropLast(4)), namespace: namespace, reason: .failed, sql: nil, underlying: underlying,
                               message: "cannot read \(file.path): \(why)")
            }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), isFolder.boolValue {
                throw unreadable("it is a directory, not a .sql file")
            }
            guard let data = FileManager.default.contents(atPath: file.path) else { throw unreadable("it cannot be opened") }
            guard let sql = String(data: data, encoding: .utf8) else { throw unreadable("it is not UTF-8 text") }
            var checks = ForeignKeyChecks.deferred
            var inTransaction = true
            // Directives are read among the comment lines atop the file (a header comment may come first), with
            // any line ending (`\r\n` from Windows editors); one below the first statement is refused, not
            // ignored: a `foreign-keys disabled` overlooked would let a rebuild's DROP TABLE cascade.
            var inHeader = true
            for rawLine in sql.split(whereSeparator: \.isNewline) {
                let line = rawLine.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: "\u{FEFF}")))
                if inHeader && !line.isEmpty && !line.hasPrefix("--") { inHeader = false }
                guard line.hasPrefix("-- strata:") else { continue }
                let directive = line.dropFirst("-- strata:".count).trimmingCharacters(in: .whitespaces)
                guard inHeader else {
                    throw MigrationError(migration: String(name.dropLast(4)), namespace: namespace, reason: .failed, sql: nil, underlying: nil,
                                         message: "the directive `-- strata: \(directive)` comes after the first statement; directives go in the comment lines atop the file")
                }
                switch directive {
                case "no-transaction": inTransaction = false
                case "foreign-keys immediate": checks = .immediate
                case "foreign-keys disabled": checks = .disabled
                case "foreign-keys deferred": checks = .deferred
                default:
                    throw MigrationError(migration: String(name.dropLast(4)), namespace: namespace, reason: .failed, sql: nil, underlying: nil,
                                         message: "unknown directive `-- strata: \(directive)` (known: no-transaction, foreign-keys immediate|deferred|disabled)")
                }
            }
            register(String(name.dropLast(4)), sql: sql, foreignKeyChecks: checks, inTransaction: inTransaction)
        }
    }

    /// Registers an FCModel-style step: it runs when the database's `PRAGMA user_version` is below
    /// `version`, and sets `user_version` to `version` in the same transaction. Databases that already
    /// count their schema this way keep doing so: a file at version 2 runs steps 3 and 4 only.
    ///
    /// ```swift
    /// migrator.registerUserVersion(3) { db in try db.execute("ALTER TABLE note ADD COLUMN pinned INTEGER") }
    /// ```
    public mutating func registerUserVersion(_ version: Int, foreignKeyChecks: ForeignKeyChecks = .deferred,
                                             _ body: @escaping @Sendable (Database) throws -> Void) {
        migrations.append(Migration(id: "user_version \(version)", foreignKeyChecks: foreignKeyChecks, inTransaction: true,
                                    body: .userVersion(version, body)))
    }

    // MARK: Reading

    /// The migrations of this namespace recorded in the database, in the order they ran.
    ///
    /// ```swift
    /// for applied in try migrator.appliedMigrations(in: db) { print(applied.id, applied.appliedAt) }
    /// ```
    public func appliedMigrations(in db: Database) throws -> [AppliedMigration] {
        guard try db.containsTable(named: Migrator.tableName) else { return [] }
        return try db.migrationRecords(namespace: namespace).map { row in
            AppliedMigration(id: text(row["id"]) ?? "", checksum: text(row["checksum"]), appliedAtText: text(row["applied_at"]) ?? "")
        }
    }

    /// What `migrate(_:progress:)` would run, without running it; throws what it would throw
    /// (an edited or unknown migration, a duplicate identifier, a list out of the order the migrations ran in).
    ///
    /// ```swift
    /// print(try migrator.plan(for: db))
    /// ```
    public func plan(for db: Database) throws -> MigrationPlan {
        var seen = Set<String>()
        for migration in migrations where !seen.insert(migration.id).inserted {
            throw error(migration.id, .duplicate, "registered twice; identifiers must be unique in a namespace")
        }
        let applied = try appliedMigrations(in: db)
        let appliedByID = Dictionary(applied.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let userVersion = try db.userVersion()
        if let remote = db.remote, let step = migrations.first(where: { if case .userVersion = $0.body { true } else { false } }) {
            throw error(step.id, .failed, "registerUserVersion steps need SQLite's user_version, which \(remote.engineName) has not; register it with register(_:) to record it in strata_migrations")
        }
        var problem: MigrationError?
        for migration in migrations {
            guard let record = appliedByID[migration.id], let now = migration.checksum, let then = record.checksum,
                  !migration.hasChecksum(then) else { continue }
            if !allowsEditedMigrations {
                problem = problem ?? error(migration.id, .edited, "its SQL changed after it ran on \(record.appliedAtText) (checksum \(then), now \(now)); add a new migration instead, or set allowsEditedMigrations during development")
            }
        }
        if let misordered = orderProblem(applied: applied, appliedByID: appliedByID) { problem = problem ?? misordered }
        let known = Set(migrations.map(\.id))
        if !allowsUnknownMigrations, let unknown = applied.first(where: { !known.contains($0.id) }) {
            problem = problem ?? error(unknown.id, .unknown, "it was applied on \(unknown.appliedAtText) but this migrator does not know it: a newer version of the app migrated this database, or the migration was renamed or removed from the list. Set allowsUnknownMigrations to open it anyway")
        }
        if let problem {
            guard eraseDatabaseOnSchemaChange else { throw problem }
            return MigrationPlan(pending: migrations, applied: applied, erasesDatabase: true)
        }
        // An edited Swift migration has no checksum to differ: what the applied ones make is compared
        // (replayed on an in-memory database; on PostgreSQL in a scratch schema of the same database).
        if eraseDatabaseOnSchemaChange, !applied.isEmpty || userVersion > 0,
           try migrationsMakeAnotherSchema(than: db, applied: appliedByID, userVersion: userVersion) {
            return MigrationPlan(pending: migrations, applied: applied, erasesDatabase: true)
        }
        let pending = migrations.filter { migration in
            if case .userVersion(let version, _) = migration.body { return userVersion < version }
            return appliedByID[migration.id] == nil
        }
        return MigrationPlan(pending: pending, applied: applied, erasesDatabase: false)
    }

    /// A list that no longer matches the order the migrations ran in: two applied ones registered in the
    /// other order, or a pending one registered before an applied one (it would run after a migration
    /// registered later: a step inserted into history, a branch merged). `user_version` steps and unknown
    /// applied migrations are not compared.
    private func orderProblem(applied: [AppliedMigration], appliedByID: [String: AppliedMigration]) -> MigrationError? {
        let recorded = migrations.filter { if case .userVersion = $0.body { false } else { true } }
        let position = Dictionary(recorded.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let ranInOrder = applied.compactMap { record in position[record.id].map { (record, $0) } }
        for (earlier, later) in zip(ranInOrder, ranInOrder.dropFirst()) where earlier.1 > later.1 {
            return error(later.0.id, .misordered, "it ran after \(earlier.0.id) (on \(later.0.appliedAtText)) but is registered before it; "
                         + "keep applied migrations in the order they ran")
        }
        guard let lastApplied = recorded.lastIndex(where: { appliedByID[$0.id] != nil }),
              let pending = recorded[..<lastApplied].first(where: { appliedByID[$0.id] == nil }) else { return nil }
        return error(pending.id, .misordered, "it is registered before \(recorded[lastApplied].id), which already ran "
                     + "(on \(appliedByID[recorded[lastApplied].id]?.appliedAtText ?? "?")), so it would run out of order; "
                     + "register new migrations after the applied ones")
    }

    // MARK: Migrating

    /// Runs the pending migrations in order, each in its own transaction, and returns the identifiers of
    /// those it ran (one that another connection applied after the plan was made is skipped). Stops at the first failure with a ``MigrationError``: that migration left nothing behind, the ones
    /// before it stay applied. Call it outside any transaction.
    ///
    /// ```swift
    /// let ran = try migrator.migrate(db) { progress in print(progress) }
    /// ```
    @discardableResult
    public func migrate(_ db: Database, progress: ((MigrationProgress) -> Void)? = nil) throws -> [String] {
        try migrate(db, upTo: nil, progress: progress)
    }

    /// Runs the pending migrations registered up to `id`, `id` included, and returns the identifiers of
    /// those it ran: a database brought to a past version (to test a migration on the data of the one
    /// before). Those registered after `id` stay pending. An `id` not registered throws, running nothing.
    ///
    /// ```swift
    /// try migrator.migrate(db, upTo: "v2-split-name")   // v1 and v2, not v3
    /// ```
    @discardableResult
    public func migrate(_ db: Database, upTo id: String, progress: ((MigrationProgress) -> Void)? = nil) throws -> [String] {
        try migrate(db, upTo: Optional(id), progress: progress)
    }

    private func migrate(_ db: Database, upTo target: String?, progress: ((MigrationProgress) -> Void)?) throws -> [String] {
        if db.isInTransaction {
            throw error(migrations.first?.id ?? "-", .failed, "migrate inside an open transaction: each migration needs its own; call it outside")
        }
        var plan = try plan(for: db)
        if let target {
            guard let last = migrations.firstIndex(where: { $0.id == target }) else {
                throw error(target, .unknown, "migrate(upTo:) names no registered migration of namespace \"\(namespace)\"; registered: \(migrations.map(\.id).joined(separator: ", "))")
            }
            let included = Set(migrations[...last].map(\.id))
            plan = MigrationPlan(pending: plan.pending.filter { included.contains($0.id) }, applied: plan.applied, erasesDatabase: plan.erasesDatabase)
        }
        var ran: [String] = []
        // Live instances then hold their rows as the migrations left them, as after another connection's
        // (once, at the end: not after each statement of a migration outside a transaction).
        db.models.followsSchemaLater = true
        defer {
            db.models.followsSchemaLater = false
            let moved = db.models.schemaMoved
            db.models.movedTables.removeAll()
            if !ran.isEmpty || plan.erasesDatabase || moved { db.followOwnSchemaChange() }
        }
        if plan.erasesDatabase { try erase(db) }
        for (offset, migration) in plan.pending.enumerated() {
            progress?(.started(id: migration.id, index: offset + 1, count: plan.pending.count))
            // (One another connection applied meanwhile is not reported as finished: this run committed nothing.)
            guard try run(migration, in: db, progress: progress) else { continue }
            ran.append(migration.id)
            progress?(.finished(id: migration.id, index: offset + 1, count: plan.pending.count))
        }
        return ran
    }

    /// Runs the pending migrations on the pool's writer, without holding a cooperative thread.
    ///
    /// ```swift
    /// try await migrator.migrate(pool)
    /// ```
    @discardableResult
    public func migrate(_ pool: DatabasePool, progress: (@Sendable (MigrationProgress) -> Void)? = nil) async throws -> [String] {
        try pool.checkUsable()
        return try await pool.writer.run(PoolJob()) { db, _ in try self.migrate(db, progress: progress) }
    }

    /// ``migrate(_:upTo:progress:)`` on the pool's writer, without holding a cooperative thread.
    ///
    /// ```swift
    /// try await migrator.migrate(pool, upTo: "v2-split-name")
    /// ```
    @discardableResult
    public func migrate(_ pool: DatabasePool, upTo id: String, progress: (@Sendable (MigrationProgress) -> Void)? = nil) async throws -> [String] {
        try pool.checkUsable()
        return try await pool.writer.run(PoolJob()) { db, _ in try self.migrate(db, upTo: id, progress: progress) }
    }

    /// Runs one pending migration; false when another connection (another process starting the same app,
    /// say) applied it after the plan was made: that is checked again under the migration's write lock,
    /// so two processes migrating at once run each migration once.
    private func run(_ migration: Migration, in db: Database, progress: ((MigrationProgress) -> Void)?) throws -> Bool {
        let foreignKeysOn = try db.foreignKeysEnabled()
        // Foreign keys are off while the migration runs (GRDB's way), unless it asks for `.immediate`: with
        // them on, a rebuild of a table others point at (create, copy, DROP, RENAME) either runs the
        // children's ON DELETE actions in its DROP TABLE, or, with checks deferred, fails at COMMIT with a
        // bare "FOREIGN KEY constraint failed" although `PRAGMA foreign_key_check` is clean (SQLite counts
        // the rows the DROP orphaned, and the RENAME that gives them a parent again does not uncount them).
        // `PRAGMA foreign_keys` cannot change inside a transaction: it is set before the migration's begins.
        // `PRAGMA foreign_key_check` then runs before the commit, and the connection's setting comes back
        // afterwards, whichever way the migration ended. (A migration outside a transaction keeps them as
        // they are unless it asks for `.disabled`: each of its statements commits on its own.)
        let turnOff = foreignKeysOn && (migration.foreignKeyChecks == .disabled
                                        || (migration.foreignKeyChecks == .deferred && migration.inTransaction))
        if turnOff { try db.setForeignKeysEnabled(false) }
        // The connection's setting comes back, whatever the migration did (outside a transaction, its own
        // `PRAGMA foreign_keys` takes effect and would outlive it).
        defer {
            if turnOff || !migration.inTransaction, (try? db.foreignKeysEnabled()) != foreignKeysOn {
                try? db.setForeignKeysEnabled(foreignKeysOn)
            }
        }
        let report = progress.map { progress in { (steps: Int) in progress(.working(id: migration.id, steps: steps)) } }
        do {
            return try db.reportingProgress(report) {
                if migration.inTransaction {
                    // Rows that broke a foreign key before the migration (a file written with foreign keys off)
                    // are not its doing: only those it leaves broken anew fail it (the lists before and after
                    // are compared). `.immediate` checks each statement instead.
                    return try db.transaction(.immediate) {
                        try db.beginMigrationTransaction(deferringForeignKeys: migration.foreignKeyChecks != .immediate)
                        if try isApplied(migration, in: db) { return false }
                        let checked = migration.foreignKeyChecks != .immediate
                        let before = checked ? try foreignKeyViolations(in: db) : []
                        // Turning foreign keys off is ignored in a transaction: refused, not silently ignored.
                        db.models.refusesForeignKeysOff = foreignKeysOn && !turnOff
                        defer { db.models.refusesForeignKeysOff = false }
                        try runBody(migration, in: db)
                        if checked, let violations = try foreignKeyError(migration, in: db, ignoring: before) { throw violations }
                        try record(migration, in: db)
                        return true
                    }
                } else {
                    // (No write lock spans a migration outside a transaction: another process may still run it
                    // at the same moment.)
                    if try isApplied(migration, in: db) { return false }
                    let before = try foreignKeyViolations(in: db)
                    do {
                        try runBody(migration, in: db)
                        // A transaction its SQL began and did not end would hold everything after it, the
                        // record and the app's saves, uncommitted until the handle closes.
                        if db.isInTransaction {
                            throw error(migration.id, .failed, "it began a transaction and did not end it; it was rolled back")
                        }
                    } catch {
                        // One its SQL began and a failing statement left open is rolled back, as reported.
                        if db.isInTransaction { try? db.execute("ROLLBACK") }
                        throw error
                    }
                    if let violations = try foreignKeyError(migration, in: db, ignoring: before) { throw violations }
                    try record(migration, in: db)
                    return true
                }
            }
        } catch let failure as MigrationError {
            throw failure
        } catch let failure as DatabaseError {
            // On another engine a foreign key is checked as rows are written (or at the COMMIT): its error is the violation.
            var engine = failure.sqlState.map { "\(db.remote?.engineName ?? "SQL") error \($0)" } ?? "SQLite error \(failure.code.rawValue)"
            if failure.sqlState == "25001", !migration.inTransaction {
                engine = "the server runs a text of several statements as one transaction: give this statement a file of its own; " + engine
            }
            throw MigrationError(migration: migration.id, namespace: namespace, reason: failure.sqlState == "23503" ? .foreignKeyViolation : .failed,
                                 sql: failure.sql, underlying: failure, message: "\(failedAnd(migration)) (\(engine): \(failure.message))")
        } catch {
            throw MigrationError(migration: migration.id, namespace: namespace, reason: .failed, sql: nil, underlying: error,
                                 message: "\(failedAnd(migration)): \(error)")
        }
    }

    /// "failed and was rolled back", or, for a migration outside a transaction, what stays.
    private func failedAnd(_ migration: Migration) -> String {
        migration.inTransaction ? "failed and was rolled back"
            : "failed; it runs outside a transaction (inTransaction: false), so what it committed before the failing statement stays, unrecorded"
    }

    /// Whether `migration` is applied now: recorded in `strata_migrations`, or, for a `user_version` step,
    /// the version reached.
    private func isApplied(_ migration: Migration, in db: Database) throws -> Bool {
        if case .userVersion(let version, _) = migration.body {
            return try db.userVersion() >= version
        }
        guard try db.containsTable(named: Migrator.tableName) else { return false }
        return try db.value(Int.self, "SELECT count(*) FROM \(SQL.quote(Migrator.tableName)) WHERE namespace = ? AND id = ?", namespace, migration.id) == 1
    }

    private func runBody(_ migration: Migration, in db: Database) throws {
        switch migration.body {
        case .swift(let body): try body(db)
        case .sql(let sql): try db.execute(sql)
        case .userVersion(let version, let body):
            try body(db)
            try db.setUserVersion(version)
        }
    }

    private func record(_ migration: Migration, in db: Database) throws {
        if case .userVersion = migration.body { return }   // user_version is the record
        try db.createMigrationTable()
        let now = ISO8601DateFormatter().string(from: Date())
        try db.execute(db.migrationRecordUpsert(),
                       namespace, migration.id, migration.checksum, now)
    }

    /// `PRAGMA foreign_key_check`, one text per violation ("book row 2 points at a missing row of author",
    /// with the foreign key's number, which `foreignKeyError` leaves out).
    private func foreignKeyViolations(in db: Database) throws -> [String] {
        try db.foreignKeyCheck().map { row in
            "\(text(row.table) ?? "?") row \(row.rowID.map { text($0) ?? "NULL" } ?? "?") points at a missing row of \(text(row.parent) ?? "?")\u{0}\(text(row.foreignKeyID) ?? "")"
        }
    }

    /// The violations of `PRAGMA foreign_key_check` not in `before`, as the migration's error naming the first
    /// rows; nil when there are none.
    private func foreignKeyError(_ migration: Migration, in db: Database, ignoring before: [String]) throws -> MigrationError? {
        let existing = Set(before)
        let violations = try foreignKeyViolations(in: db).filter { !existing.contains($0) }
        guard !violations.isEmpty else { return nil }
        let listed = violations.prefix(5).map { $0.prefix(while: { $0 != "\u{0}" }) }
        return error(migration.id, .foreignKeyViolation,
                    "foreign key violations, \(migration.inTransaction ? "rolled back" : "not rolled back (it runs outside a transaction), unrecorded"): \(listed.joined(separator: "; "))\(violations.count > 5 ? " (and \(violations.count - 5) more)" : "")")
    }

    /// Drops every table, view and trigger and resets `user_version`, in one transaction.
    private func erase(_ db: Database) throws {
        let foreignKeysOn = try db.foreignKeysEnabled()
        if foreignKeysOn { try db.setForeignKeysEnabled(false) }
        defer { if foreignKeysOn { try? db.setForeignKeysEnabled(true) } }
        try db.transaction(.immediate) {
            try db.dropTablesAndViews()
            try db.setUserVersion(0)
        }
    }

    /// A value as text (numbers spelled out), nil for NULL or no value.
    private func text(_ value: SQLValue?) -> String? {
        switch value {
        case .text(let text): text
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        default: nil
        }
    }

    private func error(_ id: String, _ reason: MigrationError.Reason, _ message: String) -> MigrationError {
        MigrationError(migration: id, namespace: namespace, reason: reason, sql: nil, underlying: nil, message: message)
    }
}
