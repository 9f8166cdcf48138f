import Foundation
import Strata

// Models of the fixture databases that more than one suite maps the same way (ExistingDatabaseTests,
// Review7FixtureTests); a model a suite maps its own way stays private to that suite.

final class FxSAPost: Model {
    static let tableName = "posts"
    var id: Int64 = 0
    var user_id: Int64 = 0
    var title = ""
    var body: String?
    var published_on: Date?
    var updated_at: Date?
    required init() {}
}

final class FxSAEvent: Model {
    static let tableName = "events"
    var id: Int64 = 0
    var kind = ""
    var payload: Data?
    var at = Date(timeIntervalSince1970: 0)
    required init() {}
}

final class FxSASetting: Model {
    static let tableName = "settings"
    static let primaryKey = "key"
    var key = ""
    var value: String?
    required init() {}
}

final class FxSATag: Model {
    static let tableName = "tags"
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class FxFCSimpler: Model {
    static let tableName = "SimplerModel"
    var id: Int64 = 0
    var title: String?
    required init() {}
}

final class FxFCAdvanced: Model {
    static let tableName = "AdvancedModel"
    static let primaryKey = "uniqueID"
    var uniqueID = ""
    var url: URL?
    required init() {}
}

final class FxSPerson: Model {
    static let tableName = "_Person"
    var id = UUID()
    var name: String?
    var email: String?
    var age: Int?
    var active = false
    required init() {}
}

/// peewee: a UUIDField primary key (TEXT, uuid.hex), a ManyToManyField's through table
/// (`gadget_part_through`), and a ForeignKeyField to the gadget (column TEXT, the referenced field's type).
final class PeeweeGadget: Model {
    static let tableName = "gadget"
    var id = UUID()
    var name = ""
    @Siblings(through: "gadget_part_through", from: "gadget_id", to: "part_id") var parts: [PeeweePart]
    required init() {}
}

final class PeeweePart: Model {
    static let tableName = "part"
    var id: Int64 = 0
    var name = ""
    @Siblings(through: "gadget_part_through", from: "part_id", to: "gadget_id") var gadgets: [PeeweeGadget]
    required init() {}
}

final class PeeweeWidget: Model {
    static let tableName = "widget"
    var id: Int64 = 0
    @Reference var gadget: PeeweeGadget?
    required init() {}
}
