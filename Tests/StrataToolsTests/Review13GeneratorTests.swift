import Foundation
import Testing
import Strata
@testable import StrataTools

/// Review 13: what `strata generate` writes for SQLAlchemy's and peewee's `JSON` columns (NUMERIC affinity).
@Suite struct Review13GeneratorTests {
    @Test func jsonColumnsSayACodableTypeMapsThere() {
        let table = TableSchema(name: "settings", columns: [
            ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1),
            ColumnSchema(name: "prefs", declaredType: "JSON"),
            ColumnSchema(name: "flags", declaredType: "JSON", notNull: true),
            ColumnSchema(name: "kind", declaredType: "STRING"),
        ])
        #expect(ModelGenerator().model(for: table).source == """
            final class Settings: Model {
                static let tableName = "settings"
                var id: Int64 = 0
                var prefs: SQLValue = .null  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
                var flags: SQLValue = .text("null")  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
                var kind: SQLValue = .null
                required init() {}
            }
            """)
    }
}
