// Strata models for the tables of smodel_test.sqlite3, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum SModelFixture {
    /// Every model of this file. ```swift SModelFixture.models.count ```
    static let models: [any Model.Type] = [Message.self, Person.self, Animal.self, Place.self, SyncableThing.self, Thing.self, Tree.self]

    final class Message: Model {
        static let tableName = "_Message"
        static let primaryKey = "localId"
        static let uniqueIndices = [["messageId"]]
        var localId: String = ""
        var messageId: String?
        var content: String?
        var createdOn: Double?
        var ownerPersonId: String?
        var syncStatus: Int64?
        var syncInFlightStatus: Int64?
        required init() {}
    }

    final class Person: Model {
        static let tableName = "_Person"
        var id: String = ""
        var name: String?
        var email: String?
        var age: Int64?
        var active: Int64?
        required init() {}
    }

    final class Animal: Model {
        static let primaryKey = "aid"
        var aid: String = ""
        var name: String?
        var living: Int64?
        var lastUpdated: Double?
        var ids: Data?
        var props: Data?
        required init() {}
    }

    final class Place: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["placeId"]]
        var localId: String = ""
        var placeId: String?
        var name: String?
        var isHot: Int64?
        var isWet: Int64?
        required init() {}
    }

    final class SyncableThing: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["tid"]]
        var localId: String = ""
        var tid: String?
        var name: String?
        var place: String?
        var syncStatus: Int64?
        var syncInFlightStatus: Int64?
        required init() {}
    }

    final class Thing: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["tid"]]
        var localId: String = ""
        var tid: String?
        var name: String?
        var place: String?
        var other: Int64?
        var otherDouble: Double?
        required init() {}
    }

    final class Tree: Model {
        static let primaryKey = "localId"
        static let uniqueIndices = [["serverId"]]
        var localId: String = ""
        var name: String?
        var status: Int64?
        var serverId: String?
        required init() {}
    }
}
