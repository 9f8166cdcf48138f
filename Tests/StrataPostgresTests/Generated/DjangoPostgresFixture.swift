// Strata models for the tables Django made (Fixtures/interop/postgres.py), written by `strata generate postgresql:///strata?…&options=-csearch_path%3D<schema> --namespace DjangoPostgresFixture`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum DjangoPostgresFixture {
    /// Every model of this file. ```swift DjangoPostgresFixture.models.count ```
    static let models: [any Model.Type] = [DjangoMigrations.self, InteropItem.self, InteropOwner.self, InteropPet.self, InteropPrice.self]

    final class DjangoMigrations: Model {
        static let tableName = "django_migrations"
        var id: Int64 = 0
        var app: String = ""
        var name: String = ""
        var applied: Date = Date(timeIntervalSince1970: 0)
        required init() {}
    }

    final class InteropItem: Model {
        static let tableName = "interop_item"
        var id: Int64 = 0
        var name: String = ""
        var notes: String?
        var counter: Int64 = 0
        var active: Bool = false
        var created_at: Date = Date(timeIntervalSince1970: 0)
        var released_on: Date?
        var price: Decimal = 0
        var uid: UUID = UUID()
        var data: SQLValue = .text("null")  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
        var weight: Double = 0
        required init() {}
    }

    final class InteropOwner: Model {
        static let tableName = "interop_owner"
        var id: UUID = UUID()
        var name: String = ""
        required init() {}
    }

    final class InteropPet: Model {
        static let tableName = "interop_pet"
        static let indices = [["owner"]]
        var id: Int64 = 0
        var name: String = ""
        var born: Date?
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
}
