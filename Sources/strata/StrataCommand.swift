import ArgumentParser
import Foundation
import Strata
import StrataTools

/// `strata`: look at a database the way Strata sees it, plan and run migrations, compare two files,
/// and write models for a database.
///
/// ```sh
/// swift run strata inspect notes.sqlite --diagram
/// swift run strata migrate notes.sqlite --migrations Migrations
/// swift run strata generate notes.sqlite > Models.swift
/// ```
///
/// Exit codes: 0 success; 1 an error (a missing, corrupt or locked file, a failing migration: the
/// message says which); 64 a usage error (ArgumentParser's).
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect SQLite databases, plan and run migrations, compare schemas, and generate Strata models.",
        discussion: "Exit codes: 0 success, 1 error (the message names the file and SQLite's reason), 64 usage error.",
        version: "strata \(StrataLibrary.version) (SQLite \(Database.sqliteVersion))",
        subcommands: [Inspect.self, Plan.self, Migrate.self, Diff.self, Generate.self]
    )

    /// ArgumentParser's `main`, with the subcommands' own errors on one line: a failing migration's statement
    /// or a schema file's SQL may span lines, and the tool answers with one readable line and exit 1.
    static func main() {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            try command.run()
        } catch let error where error is MigrationError || error is DatabaseError || error is ToolError {
            exit(withError: OneLineError(error))
        } catch {
            exit(withError: error)   // ArgumentParser's own (help, usage), as it prints them
        }
    }
}

/// An error's description with its line breaks (and the indentation after them) as single spaces.
struct OneLineError: Error, CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        description = String(describing: error).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// Opens `path` read-only: the inspecting tools never change the file. A missing file is an error
/// (SQLite would otherwise create one), and a locked one fails after a second.
///
/// A WAL database nobody has open (no `-wal` or `-shm` beside it) is opened read-write with
/// `PRAGMA query_only`: a read-only connection must create those two files to read it and, unlike the
/// last connection able to write, cannot remove them when it closes, so inspecting would leave them behind.
func openReadOnly(_ path: String) throws -> Database {
    try checkIsAFile(path)
    var configuration = Database.Configuration()
    configuration.foreignKeys = false
    configuration.busyTimeout = .seconds(1)
    let sideFiles = ["-wal", "-shm"].contains { FileManager.default.fileExists(atPath: path + $0) }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard isWAL(path), !sideFiles, FileManager.default.isWritableFile(atPath: path), FileManager.default.isWritableFile(atPath: folder) else {
        configuration.readOnly = true
        return try Database(path: path, configuration: configuration)
    }
    let db = try Database(path: path, configuration: configuration)
    do {
        try db.refuseWrites()   // PRAGMA query_only
    } catch {
        try? db.close()
        throw error
    }
    return db
}

/// Throws unless `path` exists (SQLite would create a missing file) and is a file or a folder (opening a
/// named pipe would wait for a writer forever; a device is no database): the library names a folder.
private func checkIsAFile(_ path: String) throws {
    if isPostgresURL(path) {
        throw ToolError("\(path): this command reads SQLite files only so far; `strata inspect` and `strata generate` take a postgresql:// URL")
    }
    guard FileManager.default.fileExists(atPath: path) else {
        throw ToolError("no database at \(path)")
    }
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let type = (try? FileManager.default.attributesOfItem(atPath: resolved))?[.type] as? FileAttributeType
    guard type == .typeRegular || type == .typeDirectory else {
        let kind = switch type {
        case .typeCharacterSpecial?: "a character device"
        case .typeBlockSpecial?: "a block device"
        case .typeSocket?: "a socket"
        default: "a named pipe or another special file"
        }
        throw ToolError("\(path) is \(kind), not a database file")
    }
}

/// Whether the file's header says WAL (bytes 18 and 19 are 2).
private func isWAL(_ path: String) -> Bool {
    guard let file = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? file.close() }
    let header = (try? file.read(upToCount: 20)) ?? Data()
    return header.count == 20 && header.starts(with: Data("SQLite format 3\u{0}".utf8)) && header[18] == 2 && header[19] == 2
}

/// Runs `body`, which reads the database at `path`: an SQLite error it meets (a damaged page found while
/// counting rows, say) names the file.
func reading<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as DatabaseError where !error.message.contains(path) {
        throw ToolError("\(path): \(error)")
    }
}

/// Opens `path` to write (`strata migrate`); the file must exist.
func openForWriting(_ path: String) throws -> Database {
    try checkIsAFile(path)
    var configuration = Database.Configuration()
    configuration.busyTimeout = .seconds(1)
    return try Database(path: path, configuration: configuration)
}

/// The arguments the inspecting subcommands take: the database file and an optional list of tables.
struct DatabaseSource: ParsableArguments {
    @Argument(help: "The SQLite database file (opened read-only), or a postgresql:// URL (inspect and generate; the current schema, read in a READ ONLY transaction).")
    var path: String

    @Option(name: .customLong("table"), help: "Only this table (repeat for more).")
    var tables: [String] = []
}

/// Prints `value` as pretty JSON with sorted keys.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
