// Strata models for the tables of django.sqlite3, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum DjangoInteropFixture {
    /// Every model of this file. ```swift DjangoInteropFixture.models.count ```
    static let models: [any Model.Type] = [DjangoMigrations.self, InteropDoc.self, InteropEvent.self, InteropItem.self, InteropKind.self, InteropMemo.self, InteropOwner.self, InteropOwnerTags.self, InteropPet.self, InteropPrice.self, InteropTag.self]

    final class DjangoMigrations: Model {
        static let tableName = "django_migrations"
        var id: Int64 = 0
        var app: String = ""
        var name: String = ""
        var applied: Date = Date(timeIntervalSince1970: 0)
        required init() {}
    }

    final class InteropDoc: Model {
        static let tableName = "interop_doc"
        var id: Int64 = 0
        var name: String = ""
        var data: String = ""
        var scores: String = ""
        var price: Decimal = 0
        var ratio: Double = 0
        required init() {}
    }

    final class InteropEvent: Model {
        static let tableName = "interop_event"
        var id: Int64 = 0
        var at: Date = Date(timeIntervalSince1970: 0)
        required init() {}
    }

    final class InteropItem: Model {
        static let tableName = "interop_item"
        var id: Int64 = 0
        var name: String = ""
        var created_at: Date = Date(timeIntervalSince1970: 0)
        var released_on: Date?
        var uid: UUID = UUID()
        var active: Bool = false
        var counter: Int64 = 0
        var weight: Double = 0
        var notes: String?
        required init() {}
    }

    final class InteropKind: Model {
        static let tableName = "interop_kind"
        var id: Int64 = 0
        var name: String = ""
        var amount: Decimal = 0
        var span: Int64 = 0
        var at_time: SQLValue = .text("00:00:00")  // a time of day: .text("13:14:15.123456") as the tool stores it
        var doc: String?
        var blob: Data = Data()
        var ip: String = ""
        var small: Int64 = 0
        var flag: Bool?
        var at: Date = Date(timeIntervalSince1970: 0)
        required init() {}
    }

    final class InteropMemo: Model {
        static let tableName = "interop_memo"
        var id: Int64 = 0
        var data: String = ""
        required init() {}
    }

    final class InteropOwner: Model {
        static let tableName = "interop_owner"
        var id: UUID = UUID()
        var name: String = ""
        required init() {}
    }

    final class InteropOwnerTags: Model {
        static let tableName = "interop_owner_tags"
        static let indices = [["owner"], ["tag"]]
        static let uniqueIndices = [["owner", "tag"]]
        var id: Int64 = 0
        @Reference var owner: InteropOwner?  // NOT NULL: saving without one throws
        @Reference var tag: InteropTag?  // NOT NULL: saving without one throws
        required init() {}
    }

    final class InteropPet: Model {
        static let tableName = "interop_pet"
        static let indices = [["owner"]]
        var id: Int64 = 0
        var name: String = ""
        @Reference var owner: InteropOwner?  // NOT NULL: saving without one throws
        required init() {}
    }

    final class InteropPrice: Model {
        static let tableName = "interop_price"
        static let indices = [["item"]]
        var id: Int64 = 0
        var amount: Decimal = 0
        @Reference var item: InteropItem?  // NOT NULL: saving without one throws
        required init() {}
    }

    final class InteropTag: Model {
        static let tableName = "interop_tag"
        var id: UUID = UUID()
        var name: String = ""
        required init() {}
    }
}
