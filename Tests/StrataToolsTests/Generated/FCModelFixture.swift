// Strata models for the tables of fcmodel_test.sqlite3, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum FCModelFixture {
    /// Every model of this file. ```swift FCModelFixture.models.count ```
    static let models: [any Model.Type] = [AdvancedModel.self, SimpleModel.self, SimplerModel.self]

    final class AdvancedModel: Model {
        static let primaryKey = "uniqueID"
        var uniqueID: String = ""
        var url: String?
        required init() {}
    }

    final class SimpleModel: Model {
        static let primaryKey = "uniqueID"
        var uniqueID: String = ""
        var name: String?
        var date: Date?
        var textDefaultUnspecified: String?
        var textDefaultNullLiteral: String?
        var textDefaultNullString: String? = "NULL"
        var nullableNumberDefaultUnspecified: Int64?
        var nullableNumberDefaultNull: Int64?
        var nullableNumberDefault1: Int64? = 1
        var lowercase: String?
        var mixedcase: Int64 = 0
        var typelessTest: SQLValue = .null
        required init() {}
    }

    final class SimplerModel: Model {
        var id: Int64 = 0
        var title: String?
        required init() {}
    }
}
