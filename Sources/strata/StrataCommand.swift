import ArgumentParser
import Strata
import StrataTools

/// `strata`: look at a database the way Strata sees it, and write models for it.
///
/// ```sh
/// swift run strata inspect notes.sqlite
/// swift run strata generate notes.sqlite > Models.swift
/// ```
@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Inspect SQLite databases and generate Strata models for them.",
        subcommands: [Inspect.self, Generate.self]
    )
}

/// Opens `path` read-only: the tools never change the file.
func openReadOnly(_ path: String) throws -> Database {
    var configuration = Database.Configuration()
    configuration.readOnly = true
    configuration.foreignKeys = false
    return try Database(path: path, configuration: configuration)
}

/// The arguments both subcommands take: the database file and an optional list of tables.
struct DatabaseSource: ParsableArguments {
    @Argument(help: "The SQLite database file (opened read-only).")
    var path: String

    @Option(name: .customLong("table"), help: "Only this table (repeat for more).")
    var tables: [String] = []
}

extension StrataCommand {
    /// `strata inspect <db-path>`
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each table's columns (type, affinity, NOT NULL, default, key, generated), indices and row count.")

        @OptionGroup var source: DatabaseSource

        func run() throws {
            let db = try openReadOnly(source.path)
            let schema = try DatabaseSchema(reading: db, countingRows: true).selecting(source.tables)
            print(SchemaReport(schema: schema, title: source.path).text, terminator: "")
            try db.close()
        }
    }

    /// `strata generate <db-path> [--table NAME ...] [--namespace NAME]`
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print Swift model classes for the tables Strata can map (a comment for the others).")

        @OptionGroup var source: DatabaseSource

        @Option(help: "Nest the classes in an enum of this name, with a `models` list of them.")
        var namespace: String?

        func run() throws {
            let db = try openReadOnly(source.path)
            let schema = try DatabaseSchema(reading: db).selecting(source.tables)
            let name = source.path.split(separator: "/").last.map(String.init) ?? source.path
            print(ModelGenerator(namespace: namespace).source(for: schema, origin: name), terminator: "")
            try db.close()
        }
    }
}
