import Foundation

/// One registered migration of a ``Migrator``: an identifier, what it runs, and how.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.register("v2-split-name") { db in
///     try db.execute("ALTER TABLE person ADD COLUMN lastName TEXT")
/// }
/// print(migrator.migrations.map(\.id))   // ["v2-split-name"]
/// ```
public struct Migration: Sendable {
    /// What a migration runs.
    enum Body: Sendable {
        case swift(@Sendable (Database) throws -> Void)
        case sql(String)
        /// An FCModel-style step: runs when `PRAGMA user_version` is below `version`, then sets it.
        case userVersion(Int, @Sendable (Database) throws -> Void)
    }

    /// The identifier, unique in its migrator's namespace.
    ///
    /// ```swift
    /// migration.id  // "0001_create"
    /// ```
    public let id: String
    /// How foreign keys are checked while it runs.
    ///
    /// ```swift
    /// migration.foreignKeyChecks  // .deferred
    /// ```
    public let foreignKeyChecks: ForeignKeyChecks
    /// Whether it runs inside a transaction (false for `VACUUM`-like statements, which cannot).
    /// ```swift
    /// migration.inTransaction  // true
    /// ```
    public let inTransaction: Bool
    let body: Body

    /// The SQL it runs, for SQL migrations (nil for Swift closures).
    ///
    /// ```swift
    /// migration.sql
    /// ```
    public var sql: String? {
        if case .sql(let sql) = body { return sql }
        return nil
    }

    /// The checksum recorded when it runs: of its SQL text for SQL migrations, nil for Swift ones. Line
    /// endings count as `\n` and a leading byte order mark not at all, so a checkout with Windows line
    /// endings (git's `autocrlf`) does not read as an edit.
    /// ```swift
    /// migration.checksum  // "9f1c0a3e5b7d2a41"
    /// ```
    public var checksum: String? { sql.map { Migration.checksum(of: Migration.normalizedLineEndings($0)) } }

    /// Whether `recorded` (a checksum in `strata_migrations`) is this migration's SQL: as `checksum` counts
    /// it, or byte for byte (how a file with `\r\n` line endings was recorded before they were normalized).
    func hasChecksum(_ recorded: String) -> Bool {
        guard let sql else { return true }
        return recorded == checksum || recorded == Migration.checksum(of: sql)
    }

    /// `text` with `\r\n` and `\r` as `\n`, without a leading byte order mark.
    static func normalizedLineEndings(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0xEF }) else { return text }
        var text = text
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// FNV-1a, 64 bits, of the UTF-8 text, in hexadecimal: stable across runs and platforms (unlike
    /// `Hasher`), and enough to notice an edit.
    static func checksum(of text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// How a migration treats foreign keys (Strata's connections run with `PRAGMA foreign_keys = ON`).
///
/// ```swift
/// migrator.register("rename-author", foreignKeyChecks: .immediate) { db in
///     try db.execute("ALTER TABLE author RENAME COLUMN id TO authorId")
/// }
/// ```
public enum ForeignKeyChecks: Sendable, Hashable {
    /// Foreign keys off while the migration's transaction runs, then `PRAGMA foreign_key_check` before the
    /// commit: a violation the migration made fails it and rolls it back, naming table, row and parent (rows
    /// that broke a foreign key before it ran, in a file written with foreign keys off, do not). The default,
    /// as GRDB's `.deferred`: rows can be moved in any order, and SQLite's documented rebuild of a table
    /// others point at (create the new table, copy, drop the old one, rename) works. With foreign keys on,
    /// its DROP TABLE would run the children's ON DELETE actions (a CASCADE deletes them), or, with checks
    /// merely deferred, the COMMIT would fail with a bare "FOREIGN KEY constraint failed" although
    /// `PRAGMA foreign_key_check` is clean (SQLite counts the rows the DROP left without a parent, and the
    /// RENAME that gives them one again does not uncount them). ON DELETE and ON UPDATE actions do not run
    /// in such a migration: one that deletes parents deletes their children itself, or asks for
    /// `.immediate`. The connection's setting comes back afterwards, also when the migration fails. A
    /// migration outside a transaction (`inTransaction: false`) keeps foreign keys as they are.
    ///
    /// ```swift
    /// .deferred
    /// ```
    case deferred
    /// Foreign keys stay on and each statement is checked, as outside migrations; ON DELETE and ON UPDATE
    /// actions run. A rebuild of a table others point at fails (or cascades) this way; `PRAGMA foreign_keys
    /// = OFF` inside the migration, which SQLite would ignore there, is refused.
    ///
    /// ```swift
    /// .immediate
    /// ```
    case immediate
    /// As ``deferred`` (foreign keys off while it runs, then `PRAGMA foreign_key_check` before the commit),
    /// and also for a migration outside a transaction, whose foreign keys are turned off before it and back
    /// on after it. SQLite still rewrites references when a table or column is renamed.
    /// ```swift
    /// .disabled
    /// ```
    case disabled
}

/// A migration recorded in `strata_migrations`.
///
/// ```swift
/// try migrator.appliedMigrations(in: db)
/// ```
public struct AppliedMigration: Sendable, Hashable {
    /// The migration's identifier.
    ///
    /// ```swift
    /// applied.id
    /// ```
    public let id: String
    /// The checksum of its SQL when it ran (nil for Swift migrations).
    ///
    /// ```swift
    /// applied.checksum
    /// ```
    public let checksum: String?
    /// When it ran (`Date.distantPast` when the recorded text is no date: see ``appliedAtText``).
    ///
    /// ```swift
    /// applied.appliedAt.timeIntervalSinceNow   // -3600: an hour ago
    /// ```
    public let appliedAt: Date
    /// When it ran, as recorded: ISO 8601 in UTC (`2026-11-25T06:40:00Z`), or what another tool wrote.
    ///
    /// ```swift
    /// applied.appliedAtText  // "2026-11-25T06:40:00Z"
    /// ```
    public let appliedAtText: String

    /// A record read from `strata_migrations`: the text of `applied_at` read as ISO 8601 (with or
    /// without fractional seconds) or SQLite's `datetime()` form (`2026-11-25 06:40:00`, UTC).
    init(id: String, checksum: String?, appliedAtText: String) {
        self.id = id
        self.checksum = checksum
        self.appliedAtText = appliedAtText
        appliedAt = AppliedMigration.date(appliedAtText) ?? .distantPast
    }

    /// `text` as a date in the forms ``init(id:checksum:appliedAtText:)`` reads; nil otherwise.
    static func date(_ text: String) -> Date? {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        let plain = DateFormatter()
        plain.locale = Locale(identifier: "en_US_POSIX")
        plain.timeZone = TimeZone(identifier: "UTC")
        plain.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return plain.date(from: text)
    }
}

/// What `Migrator.migrate(_:progress:)` would run, in order, without running it (a dry run).
///
/// ```swift
/// let plan = try migrator.plan(for: db)
/// for step in plan.pending { print(step.id, step.sql ?? "(Swift)") }
/// ```
public struct MigrationPlan: Sendable, CustomStringConvertible {
    /// The migrations that would run, in order.
    ///
    /// ```swift
    /// plan.pending.map(\.id)
    /// ```
    public let pending: [Migration]
    /// The migrations already applied.
    ///
    /// ```swift
    /// plan.applied.count
    /// ```
    public let applied: [AppliedMigration]
    /// True when the database would be erased first (``Migrator/eraseDatabaseOnSchemaChange``).
    /// ```swift
    /// plan.erasesDatabase
    /// ```
    public let erasesDatabase: Bool

    /// One line per pending migration, with its SQL where it has some.
    /// ```swift
    /// print(plan)
    /// ```
    public var description: String {
        var lines: [String] = []
        if erasesDatabase { lines.append("-- the database is erased first (a migration changed)") }
        if pending.isEmpty { lines.append("-- no pending migrations") }
        for migration in pending {
            switch migration.body {
            case .sql(let sql): lines.append("-- \(migration.id)\n\(sql.trimmingCharacters(in: .whitespacesAndNewlines))")
            case .swift: lines.append("-- \(migration.id) (Swift)")
            case .userVersion(let version, _): lines.append("-- \(migration.id) (Swift, sets user_version = \(version))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// Where a migration run is, for a progress display.
///
/// ```swift
/// migrator.migrate(db) { print($0) }
/// ```
public enum MigrationProgress: Sendable, Equatable, CustomStringConvertible {
    /// Migration `index` (from 1) of `count` begins.
    ///
    /// ```swift
    /// .started(id: "0002", index: 2, count: 3)
    /// ```
    case started(id: String, index: Int, count: Int)
    /// A long migration is still working (reported about every million SQLite VM steps).
    /// ```swift
    /// .working(id: "0002", steps: 3_000_000)
    /// ```
    case working(id: String, steps: Int)
    /// Migration `index` committed (not sent for one another connection applied after the plan was made).
    ///
    /// ```swift
    /// .finished(id: "0002", index: 2, count: 3)
    /// ```
    case finished(id: String, index: Int, count: Int)

    /// "[2/3] 0002_backfill".
    ///
    /// ```swift
    /// print(progress)
    /// ```
    public var description: String {
        switch self {
        case .started(let id, let index, let count): "[\(index)/\(count)] \(id)"
        case .working(let id, let steps): "    \(id): \(steps.formatted()) steps"
        case .finished(let id, let index, let count): "[\(index)/\(count)] \(id) done"
        }
    }
}

/// Why migrating stopped. The database holds what the migrations before the failing one committed; the
/// failing one was rolled back entirely.
///
/// ```swift
/// catch let error as MigrationError {
///     print(error.migration, error.reason, error.sql ?? "")
/// }
/// ```
public struct MigrationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// A migration's SQL changed after it ran.
        ///
        /// ```swift
        /// .edited
        /// ```
        case edited
        /// The database has a migration this migrator does not know (a newer version ran).
        ///
        /// ```swift
        /// .unknown
        /// ```
        case unknown
        /// The migration threw, or a statement failed.
        ///
        /// ```swift
        /// .failed
        /// ```
        case failed
        /// `PRAGMA foreign_key_check` found rows whose parent is missing.
        ///
        /// ```swift
        /// .foreignKeyViolation
        /// ```
        case foreignKeyViolation
        /// Two registered migrations share an identifier.
        ///
        /// ```swift
        /// .duplicate
        /// ```
        case duplicate
        /// The registered list does not match the order the migrations ran in: two applied ones were
        /// swapped, or a pending one was registered before an applied one (it would run out of order).
        ///
        /// ```swift
        /// .misordered
        /// ```
        case misordered
    }

    /// The migration's identifier.
    ///
    /// ```swift
    /// error.migration  // "0002_backfill"
    /// ```
    public let migration: String
    /// The namespace.
    ///
    /// ```swift
    /// error.namespace  // "main"
    /// ```
    public let namespace: String
    /// What went wrong.
    ///
    /// ```swift
    /// error.reason == .failed
    /// ```
    public let reason: Reason
    /// The statement that failed, when one did.
    ///
    /// ```swift
    /// error.sql
    /// ```
    public let sql: String?
    /// The underlying error (a ``DatabaseError`` for SQLite's), when there is one.
    ///
    /// ```swift
    /// error.underlying
    /// ```
    public let underlying: (any Error)?
    /// The explanation.
    ///
    /// ```swift
    /// error.message
    /// ```
    public let message: String

    /// "migration 0002_backfill failed: … while executing `…`".
    ///
    /// ```swift
    /// print(error)
    /// ```
    ///
    /// A long message or statement is cut, with a marker saying how much was left out (`sql` keeps it all).
    public var description: String {
        var text = "migration \(migration)\(namespace == Migrator.defaultNamespace ? "" : " (namespace \(namespace))"): \(ErrorText.clipped(message, limit: ErrorText.sqlLimit))"
        if let sql { text += " while executing `\(ErrorText.clipped(sql, limit: ErrorText.sqlLimit, of: "SQL"))`" }
        return text
    }
}
