// Strata models for the tables of grdb_ProfilingDatabase.sqlite, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum GRDBFixture {
    /// Every model of this file. ```swift GRDBFixture.models.count ```
    static let models: [any Model.Type] = [Items.self]

    final class Items: Model {
        static let tableName = "items"
        static let primaryKey = "rowid"
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var i0: Int64?
        var i1: Int64?
        var i2: Int64?
        var i3: Int64?
        var i4: Int64?
        var i5: Int64?
        var i6: Int64?
        var i7: Int64?
        var i8: Int64?
        var i9: Int64?
        required init() {}
    }
}
