import Foundation
@testable import Strata

/// A database file in its own temporary folder, removed (with -wal/-shm) when the value is released.
final class TemporaryDatabase {
    let folder: URL
    let path: String
    private(set) var db: Database

    init(copying fixture: String? = nil, configuration: Database.Configuration = Database.Configuration()) throws {
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
    func reopen(configuration: Database.Configuration = Database.Configuration()) throws -> Database {
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
enum Fixtures {
    static let folder: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Support, StrataToolsTests, Tests, checkout
        let shared = url.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: shared.path) ? shared : nil
    }()

    static var available: Bool { folder != nil }

    static func path(_ name: String) -> String? {
        folder.map { $0.appendingPathComponent(name).path }
    }
}
