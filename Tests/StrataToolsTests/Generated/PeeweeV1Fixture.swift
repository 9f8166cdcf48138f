// Strata models for the tables of peewee_notes_v1.sqlite3, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum PeeweeV1Fixture {
    /// Every model of this file. ```swift PeeweeV1Fixture.models.count ```
    static let models: [any Model.Type] = [Author.self, Label.self, Note.self, Notebook.self, Notelabel.self]

    final class Author: Model {
        static let tableName = "author"
        static let uniqueIndices = [["name"]]
        var id: Int64 = 0
        var name: String = ""
        var email: String?
        var active: Int64 = 0
        var joined: Date = Date(timeIntervalSince1970: 0)
        var birthday: Date?
        var karma: Decimal = 0
        var height: Double?
        var ext_id: String = ""
        var last_seen: Int64?
        required init() {}
    }

    final class Label: Model {
        static let tableName = "label"
        static let primaryKey = "code"
        var code: String = ""
        var description: String?
        required init() {}
    }

    final class Note: Model {
        static let tableName = "note"
        static let indices = [["created"], ["notebook"], ["pinned"]]
        var id: Int64 = 0
        @Reference var notebook: Notebook?
        var body: String = ""
        var pinned: Int64 = 0
        var attachment: Data?
        var created: Date = Date(timeIntervalSince1970: 0)
        var priority: Int64 = 0
        var big: Int64 = 0
        var ratio: Double = 0
        required init() {}
    }

    final class Notebook: Model {
        static let tableName = "notebook"
        static let primaryKey = "notebook_id"
        static let indices = [["owner"]]
        static let uniqueIndices = [["owner", "title"]]
        var notebook_id: Int64 = 0
        @Reference var owner: Author?  // NOT NULL: saving without one throws
        var title: String = ""
        required init() {}
    }

    final class Notelabel: Model {
        static let tableName = "notelabel"
        static let compositeKey = ["note", "label"]
        static let indices = [["label"], ["note"]]
        @Reference var note: Note?  // NOT NULL: saving without one throws
        @Reference var label: Label?  // NOT NULL: saving without one throws
        required init() {}
    }
}
