import Foundation
import Strata

/// A database file in its own temporary folder, removed (with -wal/-shm) when the value is released.
public final class TemporaryDatabase {
    /// The folder removed on release. ```swift temp.folder ```
    public let folder: URL
    /// The database file. ```swift temp.path ```
    public let path: String
    /// The open handle. ```swift try temp.db.save(x) ```
    public private(set) var db: Database

    /// A new empty database, or a writable copy of `fixture`. ```swift let temp = try TemporaryDatabase() ```
    public init(copying fixture: String? = nil, configuration: Database.Configuration = Database.Configuration()) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = fixture.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "test.sqlite"
        path = folder.appendingPathComponent(name).path
        if let fixture {
            try FileManager.default.copyItem(atPath: fixture, toPath: path)
            // The fixtures are read-only; the copy must be writable for non-root users too.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        }
        db = try Database(path: path, configuration: configuration)
    }

    /// Closes and opens the same file again (a new handle, a new identity map).
    @discardableResult
    public func reopen(configuration: Database.Configuration = Database.Configuration()) throws -> Database {
        try db.close()
        db = try Database(path: path, configuration: configuration)
        return db
    }

    deinit {
        try? db.close()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Where ../shared/fixtures is, when the checkout has it beside it (CI does); nil otherwise.
public enum Fixtures {
    /// The fixtures folder, or nil. ```swift Fixtures.folder ```
    public static let folder: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // TemporaryDatabase.swift, StrataTestSupport, Tests
        let shared = url.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: shared.path) ? shared : nil
    }()

    /// Whether the fixtures are here. ```swift @Test(.enabled(if: Fixtures.available)) ```
    public static var available: Bool { folder != nil }

    /// The path of one fixture. ```swift Fixtures.path("GYDataCenterTests.db") ```
    public static func path(_ name: String) -> String? {
        folder.map { $0.appendingPathComponent(name).path }
    }
}
