import Foundation
import Testing

// Issue 34's boundary: outside Sources/Strata/SQLite (and the CSQLite shim), no code imports CSQLite or names
// SQLite's API, PRAGMAs or catalog. `.ci/check-boundary` is the check; this test runs it, so `swift test`
// fails as soon as a change leaks SQLite into another room.
@Suite struct EngineBoundaryTests {
    /// The package root, from this file's path (Tests/StrataTests/Database/…).
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private func run(_ script: String, arguments: [String] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.root.appendingPathComponent(script).path] + arguments
        process.currentDirectoryURL = Self.root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func noCodeOutsideTheSQLiteFolderNamesSQLite() throws {
        let (status, output) = try run(".ci/check-boundary")
        #expect(status == 0, "\(output)")
        #expect(output.contains("engine boundary: holds"))
    }

    /// The check itself finds a leak: a file outside the folder that calls SQLite is reported with its line.
    @Test func theCheckReportsALeak() throws {
        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("strata-boundary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: tree) }
        let query = tree.appendingPathComponent("Sources/Strata/Query"), sqlite = tree.appendingPathComponent("Sources/Strata/SQLite")
        try FileManager.default.createDirectory(at: query, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sqlite, withIntermediateDirectories: true)
        try "// a comment may say sqlite3_step\nlet probe = sqlite3_libversion()\nlet sql = \"PRAGMA user_version\"\n"
            .write(to: query.appendingPathComponent("Leak.swift"), atomically: true, encoding: .utf8)
        try "import CSQLite\nlet version = sqlite3_libversion()\n"
            .write(to: sqlite.appendingPathComponent("Fine.swift"), atomically: true, encoding: .utf8)
        let (status, output) = try run(".ci/check-boundary", arguments: [tree.path])
        #expect(status == 1)
        #expect(output.contains("Sources/Strata/Query/Leak.swift:2:let probe = sqlite3_libversion()"))
        #expect(output.contains("Sources/Strata/Query/Leak.swift:3:let sql = \"PRAGMA user_version\""))
        #expect(!output.contains("Leak.swift:1:"))
        #expect(!output.contains("Fine.swift"))
    }
}
