import Foundation
import StrataTestSupport
import Testing
import Strata
@testable import StrataTools

/// Generated models for databases other tools wrote, checked against what their schema says.
@Suite(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
struct FixtureGenerationTests {
    /// One class of generated source: its table (from tableName or the class name), key and properties.
    struct ParsedClass: Equatable {
        var table: String
        var primaryKey = "id"
        var properties: [String] = []
        var persistent: [String]?
        var columnNames: [String: String] = [:]
        var references: Set<String> = []
        var compositeKey: [String] = []

        /// The column each property maps to, given the table's columns: columnNames, else the name, else
        /// (references) the `<name>_id` / `<name>Id` column.
        func columns(in tableColumns: [String]) -> [String] {
            properties.map { name in
                if let column = columnNames[name] { return column }
                if !references.contains(name) || tableColumns.contains(name) { return name }
                return tableColumns.first { [name + "_id", name + "Id"].contains($0) } ?? name
            }
        }
    }

    /// Reads back the classes and skipped tables of `source`, line by line.
    static func parse(_ source: String) -> (classes: [ParsedClass], skipped: [String]) {
        var classes: [ParsedClass] = [], skipped: [String] = []
        func quoted(_ line: Substring) -> String { String(line.split(separator: "\"", maxSplits: 2)[1]) }
        for raw in source.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)[...]
            if line.hasPrefix("// skipped: \"") {
                skipped.append(quoted(line))
            } else if line.hasPrefix("final class ") {
                classes.append(ParsedClass(table: String(line.dropFirst(12).prefix { $0 != ":" })))
            } else if line.hasPrefix("static let tableName = ") {
                classes[classes.count - 1].table = quoted(line)
            } else if line.hasPrefix("static let primaryKey = ") {
                classes[classes.count - 1].primaryKey = quoted(line)
            } else if line.hasPrefix("static let compositeKey = ") {
                classes[classes.count - 1].compositeKey = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            } else if line.hasPrefix("static let persistentProperties = ") {
                classes[classes.count - 1].persistent = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            } else if line.hasPrefix("static let columnNames = ") {
                let parts = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
                for pair in stride(from: 0, to: parts.count - 1, by: 2) { classes[classes.count - 1].columnNames[parts[pair]] = parts[pair + 1] }
            } else if line.hasPrefix("@Reference var ") {
                let name = String(line.dropFirst(15).prefix { $0 != ":" }.filter { $0 != "`" })
                classes[classes.count - 1].properties.append(name)
                classes[classes.count - 1].references.insert(name)
            } else if line.hasPrefix("var ") {
                let name = line.dropFirst(4).prefix { $0 != ":" }.filter { $0 != "`" }
                classes[classes.count - 1].properties.append(String(name))
            }
        }
        return (classes, skipped)
    }

    @Test(arguments: ["GYDataCenterTests.db", "fcmodel_test.sqlite3", "smodel_test.sqlite3", "peewee_notes.sqlite3"])
    func classesMatchTheSchema(_ file: String) throws {
        let path: String = try #require(Fixtures.path(file))
        let fixture = try TemporaryDatabase(copying: path)
        let db = fixture.db
        let source = ModelGenerator().source(for: try DatabaseSchema(reading: db), origin: file)
        let (classes, skipped) = Self.parse(source)

        // What the schema says, asked with plain SQL: every table, its columns and its key columns.
        let tables = try db.column(String.self, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        #expect(Set(classes.map(\.table) + skipped) == Set(tables))
        #expect(classes.count + skipped.count == tables.count)
        for table in tables {
            let keys = try db.column(String.self, "SELECT name FROM pragma_table_info(?) WHERE pk > 0", table)
            let columns = try db.column(String.self, "SELECT name FROM pragma_table_xinfo(?)", table)
            let generated = try db.column(String.self, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)", table)
            guard let model = classes.first(where: { $0.table == table }) else {
                #expect(keys.count != 1, "\(file): \(table) has one key column, \(keys), but was skipped")
                continue
            }
            let keyProperties = model.compositeKey.isEmpty ? [model.primaryKey] : model.compositeKey
            let keyModel = ParsedClass(table: table, properties: keyProperties, columnNames: model.columnNames, references: model.references)
            #expect(keys == keyModel.columns(in: columns), "\(file): \(table)")
            #expect(model.columns(in: columns) == columns, "\(file): \(table)")
            // Generated columns are properties too: read, never written.
            _ = generated
            #expect(model.persistent == nil, "\(file): \(table)")
        }
    }

    @Test func expectedClassesPerFixture() throws {
        let expected: [String: (classes: [String], skipped: [String])] = [
            "GYDataCenterTests.db": (["Department", "Employee"], []),
            "fcmodel_test.sqlite3": (["AdvancedModel", "SimpleModel", "SimplerModel"], []),
            "smodel_test.sqlite3": (["_Message", "_Person", "Animal", "Place", "SyncableThing", "Thing", "Tree"], []),
            "peewee_notes.sqlite3": (["author", "label", "note", "notebook", "notelabel"], []),
        ]
        for (file, want) in expected {
            let path: String = try #require(Fixtures.path(file))
        let fixture = try TemporaryDatabase(copying: path)
            let (classes, skipped) = Self.parse(ModelGenerator().source(for: try DatabaseSchema(reading: fixture.db)))
            #expect(classes.map(\.table) == want.classes, "\(file)")
            #expect(skipped == want.skipped, "\(file)")
        }
    }

    /// GYDataCenterModels.swift is this generator's output for GYDataCenterTests.db, committed: it
    /// compiles, and its classes sync with an empty plan and read every row.
    @Test func committedGYDataCenterModelsMapWithAnEmptyPlan() throws {
        let path: String = try #require(Fixtures.path("GYDataCenterTests.db"))
        let fixture = try TemporaryDatabase(copying: path)
        let db = fixture.db
        #expect(try db.schemaPlan(for: Department.self).isEmpty)
        #expect(try db.schemaPlan(for: Employee.self).isEmpty)

        let employees = try db.objects(Employee.self, where: "ORDER BY employeeId")
        #expect(employees.count == 3)
        #expect(employees.allSatisfy { $0.name != nil && $0.department != nil })
        let department = try #require(try db.objects(Department.self).first)
        #expect(employees.contains { $0.department == department.departmentId })
        #expect(department.floatProperty.map { abs($0 - 1.1) < 1e-6 } == true)
        #expect(department.arrayProperty?.isEmpty == false)
        #expect(try db.schemaPlan(for: Employee.self).isEmpty)   // reading changed nothing

        // The committed file is what the generator writes today.
        let committed = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("GYDataCenterModels.swift"), encoding: .utf8)
        let schema = try DatabaseSchema(reading: db)
        #expect(ModelGenerator().source(for: schema, origin: "GYDataCenterTests.db") == committed)
    }
}

/// The generator's output for each fixture, committed under Generated/ (so the test target compiles it):
/// every class syncs with an empty plan, reads every row of its table, and leaves the file byte-identical.
@Suite(.enabled(if: Fixtures.available, "../shared/fixtures is not beside the checkout"))
struct GeneratedFixtureModelTests {
    static let fixtures: [(file: String, namespace: String, models: [any Model.Type])] = [
        ("GYDataCenterTests.db", "GYDataCenterFixture", GYDataCenterFixture.models),
        ("fcmodel_test.sqlite3", "FCModelFixture", FCModelFixture.models),
        ("smodel_test.sqlite3", "SModelFixture", SModelFixture.models),
        ("peewee_notes.sqlite3", "PeeweeFixture", PeeweeFixture.models),
        ("sqlalchemy_blog.sqlite3", "SQLAlchemyFixture", SQLAlchemyFixture.models),
        ("peewee_notes_v1.sqlite3", "PeeweeV1Fixture", PeeweeV1Fixture.models),
        ("sqlalchemy_blog_v1.sqlite3", "SQLAlchemyV1Fixture", SQLAlchemyV1Fixture.models),
        ("familysearch_app.sqlite3", "FamilySearchFixture", FamilySearchFixture.models),
        ("grdb_ProfilingDatabase.sqlite", "GRDBFixture", GRDBFixture.models),
    ]

    @Test(arguments: 0..<fixtures.count)
    func generatedModelsReadEveryRowWithAnEmptyPlan(_ index: Int) throws {
        let (file, namespace, models) = Self.fixtures[index]
        let path: String = try #require(Fixtures.path(file))
        let fixture = try TemporaryDatabase(copying: path)
        try fixture.db.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        let db = try fixture.reopen()

        // The committed file is what the generator writes today.
        let committed = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Generated/\(namespace).swift"), encoding: .utf8)
        #expect(ModelGenerator(namespace: namespace).source(for: try DatabaseSchema(reading: db), origin: file) == committed)

        #expect(!models.isEmpty)
        for model in models {
            try check(model, in: db, file: file)
        }
        try db.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == before, "\(file) changed")
    }

    /// The same for a database Django built (Fixtures/interop/run.sh prepares it in STRATA_INTEROP_DIR and
    /// runs this before Strata writes to it): a ForeignKey, a DecimalField, a UUIDField, dates.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_INTEROP_DIR"] != nil, "run by Fixtures/interop/run.sh"))
    func generatedModelsOfADjangoDatabase() throws {
        let folder = try #require(ProcessInfo.processInfo.environment["STRATA_INTEROP_DIR"])
        let fixture = try TemporaryDatabase(copying: folder + "/django.sqlite3")
        try fixture.db.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        let db = try fixture.reopen()
        let committed = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Generated/DjangoInteropFixture.swift"), encoding: .utf8)
        #expect(ModelGenerator(namespace: "DjangoInteropFixture").source(for: try DatabaseSchema(reading: db), origin: "django.sqlite3") == committed)
        for model in DjangoInteropFixture.models { try check(model, in: db, file: "django.sqlite3") }
        let price = try #require(try db.objects(DjangoInteropFixture.InteropPrice.self, where: "ORDER BY id").first)
        #expect(price.item?.name == "alpha" && price.amount == Decimal(string: "19.99"))
        #expect(try db.objects(DjangoInteropFixture.InteropItem.self).map(\.uid.uuidString).contains("0F8FAD5B-D9CB-469F-A165-70867728950E"))
        try db.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == before, "django.sqlite3 changed")
    }

    private func check<T: Model>(_ type: T.Type, in db: Database, file: String) throws {
        let plan = try db.schemaPlan(for: T.self)
        #expect(plan.isEmpty, "\(file): \(T.self): \(plan)")
        let rows = try db.value(Int.self, "SELECT count(*) FROM \"\(plan.table)\"") ?? -1
        #expect(try db.objects(T.self).count == rows, "\(file): \(T.self)")
    }
}
