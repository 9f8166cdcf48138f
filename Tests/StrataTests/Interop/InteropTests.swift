import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// The Swift side of Fixtures/interop: databases that Django, SQLAlchemy and peewee built, in the folder
// STRATA_INTEROP_DIR names. Strata updates one property of a row, saves an unchanged row, deletes a row
// and inserts one; Fixtures/interop/interop.py then has each tool read every row back. Skipped unless
// Fixtures/interop/run.sh runs it.

private let interopFolder = ProcessInfo.processInfo.environment["STRATA_INTEROP_DIR"]

/// The columns all three tools' `Item` models share (each tool's own declared types and formats).
private protocol InteropItem: ModelDeclaration, ModelObject {
    var id: Int64 { get set }
    var name: String { get set }
    var created_at: Date { get set }
    var released_on: Date? { get set }
    var uid: UUID { get set }
    var active: Bool { get set }
    var counter: Int { get set }
    var weight: Double { get set }
    var notes: String? { get set }
}

private final class DjangoItem: ModelObject, InteropItem {
    static let tableName = "interop_item"
    var id: Int64 = 0
    var name = ""
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var uid = UUID()
    var active = false
    var counter = 0
    var weight = 0.0
    var notes: String?
    required init() { super.init() }
}

private final class SQLAlchemyItem: ModelObject, InteropItem {
    static let tableName = "items"
    var id: Int64 = 0
    var name = ""
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var uid = UUID()
    var active = false
    var counter = 0
    var weight = 0.0
    var notes: String?
    required init() { super.init() }
}

private final class PeeweeItem: ModelObject, InteropItem {
    static let tableName = "item"
    var id: Int64 = 0
    var name = ""
    var created_at = Date(timeIntervalSince1970: 0)
    var released_on: Date?
    var uid = UUID()
    var active = false
    var counter = 0
    var weight = 0.0
    var notes: String?
    var seen_at = Date(timeIntervalSince1970: 0)
    required init() { super.init() }
}

@Suite(.enabled(if: interopFolder != nil, "run by Fixtures/interop/run.sh"))
struct InteropTests {
    private func exercise<T: InteropItem>(_ type: T.Type, file: String, extra: (T) -> Void = { _ in }) throws {
        let folder = try #require(interopFolder)
        let db = try Database(path: URL(fileURLWithPath: folder).appendingPathComponent(file).path)
        defer { try? db.close() }

        let alpha = try #require(try db.first(T.self, where: "WHERE name = ?", "alpha"))
        alpha.name = "alpha-strata"
        #expect(alpha.changedProperties == ["name"])
        try db.save(alpha)

        let gamma = try #require(try db.first(T.self, where: "WHERE name = ?", "gamma"))
        var statements: [String] = []
        let trace = db.traceStatements { statements.append($0) }
        try db.save(gamma)
        trace.cancel()
        #expect(statements.isEmpty)

        let beta = try #require(try db.first(T.self, where: "WHERE name = ?", "beta"))
        #expect(try db.delete(beta))

        let new = T()
        new.name = "strata-new"
        new.created_at = Date(timeIntervalSince1970: 1_714_979_289.123456)
        new.released_on = Date(timeIntervalSince1970: 1_714_953_600)
        new.uid = try #require(UUID(uuidString: "12345678-1234-5678-1234-567812345678"))
        new.active = true
        new.counter = 7
        new.weight = 2.5
        new.notes = "from strata"
        extra(new)
        try db.save(new)
        #expect(new.id == 4)
    }

    @Test func django() throws {
        try exercise(DjangoItem.self, file: "django.sqlite3")
    }

    @Test func sqlalchemy() throws {
        try exercise(SQLAlchemyItem.self, file: "sqlalchemy.sqlite3")
    }

    @Test func peewee() throws {
        try exercise(PeeweeItem.self, file: "peewee.sqlite3") { $0.seen_at = Date(timeIntervalSince1970: 1_714_979_289) }
    }
}
