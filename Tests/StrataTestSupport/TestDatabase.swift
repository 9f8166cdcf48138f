import Foundation
import Strata
import StrataPostgres
import Testing

/// The engine the engine-neutral suites run on: SQLite unless `STRATA_TEST_ENGINE=postgresql`, then the
/// server `STRATA_POSTGRES_URL` names (each test in a schema of its own, dropped afterwards).
///
/// ```swift
/// STRATA_TEST_ENGINE=postgresql STRATA_POSTGRES_URL="postgresql:///strata?host=/tmp/pg" swift test --filter ModelQueryTests
/// ```
public enum TestEngine: String, Sendable {
    case sqlite, postgresql

    /// The engine of this run. ```swift if TestEngine.current == .postgresql { ... } ```
    public static let current: TestEngine =
        ProcessInfo.processInfo.environment["STRATA_TEST_ENGINE"]?.lowercased() == "postgresql" ? .postgresql : .sqlite

    /// Whether this run is on PostgreSQL. ```swift #expect(TestEngine.isPostgreSQL ? a : b) ```
    public static var isPostgreSQL: Bool { current == .postgresql }

    /// A traced statement with PostgreSQL's numbered placeholders (`$1`, `$2`, …) spelled `?`, as SQLite's
    /// are, so that one expectation on a statement's text holds on both engines.
    ///
    /// ```swift
    /// let trace = db.traceStatements { seen.append(TestEngine.questionMarks($0)) }
    /// #expect(seen.contains(#"SELECT "id" FROM "note" WHERE "id" = ?"#))
    /// ```
    public static func questionMarks(_ sql: String) -> String {
        sql.replacing(/\$[0-9]+/, with: "?")
    }

    /// The server's URL on a PostgreSQL run; throws naming the variable when it is not set.
    static func postgresURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty else {
            throw DatabaseError(code: .cannotOpen, message: "STRATA_TEST_ENGINE=postgresql needs STRATA_POSTGRES_URL "
                + "(run under Scripts/with-postgres.sh)")
        }
        return url
    }

    /// A new schema's name and the URL whose connections start in it (libpq's `options`).
    static func freshSchema() throws -> (schema: String, url: String) {
        let url = try postgresURL()
        let schema = "strata_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let separator = url.contains("?") ? "&" : "?"
        return (schema, url + separator + "options=-csearch_path%3D\(schema)")
    }
}

extension Tag {
    /// A test or suite that needs SQLite itself (`typeof()`, PRAGMA, rowid, sqlite_master, files, WAL):
    /// skipped on a PostgreSQL run by its `.sqliteOnly(_:)` condition.
    @Tag public static var sqliteOnly: Self
}

extension Trait where Self == ConditionTrait {
    /// Skips the test or suite on a PostgreSQL run, saying why; pair it with the tag.
    ///
    /// ```swift
    /// @Test(.tags(.sqliteOnly), .sqliteOnly("typeof() of the stored value"))
    /// func storesAnInteger() throws { ... }
    /// ```
    public static func sqliteOnly(_ reason: Comment) -> Self {
        .enabled(if: !TestEngine.isPostgreSQL, "SQLite only: \(reason)")
    }
}

/// A fresh database on the engine of the run: a temporary SQLite file (as ``TemporaryDatabase``), or a new
/// PostgreSQL schema; removed (file, or `DROP SCHEMA ... CASCADE`) when the value is released.
///
/// ```swift
/// let test = try TestDatabase()
/// try test.db.syncSchema(Note.self)
/// try test.reopen()   // a new handle on the same database
/// ```
public final class TestDatabase {
    /// The open handle. ```swift try test.db.save(note) ```
    public private(set) var db: Database
    private let sqlite: TemporaryDatabase?
    private let postgresURL: String?
    private let schema: String?

    /// A new empty database on the run's engine. ```swift let test = try TestDatabase() ```
    public init(configuration: Database.Configuration = Database.Configuration()) throws {
        switch TestEngine.current {
        case .sqlite:
            let temp = try TemporaryDatabase(configuration: configuration)
            sqlite = temp
            postgresURL = nil
            schema = nil
            db = temp.db
        case .postgresql:
            let (schema, url) = try TestEngine.freshSchema()
            sqlite = nil
            postgresURL = url
            self.schema = schema
            db = try Database(postgresURL: url, configuration: configuration)
            try db.execute("CREATE SCHEMA \(schema)")
        }
    }

    /// A fresh database's handle, for tests that used an in-memory `Database()`: in memory on SQLite (as
    /// before), a new schema on PostgreSQL, dropped when the process exits (its connection closes with the
    /// handle).
    ///
    /// ```swift
    /// let db = try TestDatabase.make()
    /// ```
    public static func make(configuration: Database.Configuration = Database.Configuration()) throws -> Database {
        switch TestEngine.current {
        case .sqlite:
            return try Database(configuration: configuration)
        case .postgresql:
            let (schema, url) = try TestEngine.freshSchema()
            let db = try Database(postgresURL: url, configuration: configuration)
            try db.execute("CREATE SCHEMA \(schema)")
            SchemasToDrop.shared.add(schema)
            return db
        }
    }

    /// Closes and opens the same database again (a new handle, a new identity map).
    ///
    /// ```swift
    /// try test.reopen()
    /// ```
    @discardableResult
    public func reopen(configuration: Database.Configuration = Database.Configuration()) throws -> Database {
        if let sqlite {
            db = try sqlite.reopen(configuration: configuration)
        } else if let postgresURL {
            try db.close()
            db = try Database(postgresURL: postgresURL, configuration: configuration)
        }
        return db
    }

    /// Another handle on the same database (a second connection, its own identity map), as a second
    /// process or pool connection would open it.
    ///
    /// ```swift
    /// let other = try test.openAnother()
    /// ```
    public func openAnother(configuration: Database.Configuration = Database.Configuration()) throws -> Database {
        if let sqlite { return try Database(path: sqlite.path, configuration: configuration) }
        return try Database(postgresURL: postgresURL ?? "", configuration: configuration)
    }

    /// A pool on the same database; close it before the value is released.
    ///
    /// ```swift
    /// let pool = try test.pool(readers: 1)
    /// ```
    public func pool(readers: Int = 2, configuration: Database.Configuration = Database.Configuration()) throws -> DatabasePool {
        if let sqlite { return try DatabasePool(path: sqlite.path, readers: readers, configuration: configuration) }
        return try DatabasePool(postgresURL: postgresURL ?? "", readers: readers, configuration: configuration)
    }

    deinit {
        guard let schema else { return }  // the TemporaryDatabase removes its file
        if db.isInTransaction { try? db.execute("ROLLBACK") }
        try? db.execute("DROP SCHEMA \(schema) CASCADE")
        try? db.close()
    }
}

/// Runs `body` on a fresh database of the run's engine, removed afterwards.
///
/// ```swift
/// try withTestDatabase { db in try db.syncSchema(Note.self) }
/// ```
public func withTestDatabase<T>(configuration: Database.Configuration = Database.Configuration(),
                                _ body: (Database) throws -> T) throws -> T {
    let test = try TestDatabase(configuration: configuration)
    return try withExtendedLifetime(test) { try body(test.db) }
}

/// Runs `body` on a fresh pool of the run's engine: on a temporary SQLite file, or on a new PostgreSQL
/// schema every connection of the pool starts in; removed afterwards.
///
/// ```swift
/// try await withTestPool { pool in try await pool.write { db in try db.save(note) } }
/// ```
public func withTestPool<T>(readers: Int = 2, configuration: Database.Configuration = Database.Configuration(),
                            _ body: (DatabasePool) async throws -> T) async throws -> T {
    switch TestEngine.current {
    case .sqlite:
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let pool = try DatabasePool(path: temp.path, readers: readers, configuration: configuration)
        let result = try await body(pool)
        try await pool.close()
        withExtendedLifetime(temp) {}
        return result
    case .postgresql:
        let (schema, url) = try TestEngine.freshSchema()
        let admin = try Database(postgresURL: try TestEngine.postgresURL())
        try admin.execute("CREATE SCHEMA \(schema)")
        defer {
            try? admin.execute("DROP SCHEMA \(schema) CASCADE")
            try? admin.close()
        }
        let pool = try DatabasePool(postgresURL: url, readers: readers, configuration: configuration)
        let result = try await body(pool)
        try await pool.close()
        return result
    }
}

/// The schemas of `TestDatabase.make()`, dropped when the test process exits.
private final class SchemasToDrop: @unchecked Sendable {
    static let shared = SchemasToDrop()
    private let lock = NSLock()
    private var schemas: [String] = []

    func add(_ schema: String) {
        lock.lock()
        defer { lock.unlock() }
        if schemas.isEmpty { atexit { SchemasToDrop.shared.dropAll() } }
        schemas.append(schema)
    }

    func dropAll() {
        lock.lock()
        let names = schemas
        schemas = []
        lock.unlock()
        guard !names.isEmpty, let url = try? TestEngine.postgresURL(), let admin = try? Database(postgresURL: url) else { return }
        for name in names { try? admin.execute("DROP SCHEMA IF EXISTS \(name) CASCADE") }
        try? admin.close()
    }
}
