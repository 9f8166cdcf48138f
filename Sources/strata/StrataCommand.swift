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
}

/// Opens `path` read-only: the inspecting tools never change the file. A missing file is an error
/// (SQLite would otherwise create one), and a locked one fails after a second.
func openReadOnly(_ path: String) throws -> Database {
    guard FileManager.default.fileExists(atPath: path) else {
        throw ToolError("no database at \(path)")
    }
    var configuration = Database.Configuration()
    configuration.readOnly = true
    configuration.foreignKeys = false
    configuration.busyTimeout = .seconds(1)
    return try Database(path: path, configuration: configuration)
}

/// Opens `path` to write (`strata migrate`); the file must exist.
func openForWriting(_ path: String) throws -> Database {
    guard FileManager.default.fileExists(atPath: path) else {
        throw ToolError("no database at \(path)")
    }
    var configuration = Database.Configuration()
    configuration.busyTimeout = .seconds(1)
    return try Database(path: path, configuration: configuration)
}

/// The arguments the inspecting subcommands take: the database file and an optional list of tables.
struct DatabaseSource: ParsableArguments {
    @Argument(help: "The SQLite database file (opened read-only).")
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
