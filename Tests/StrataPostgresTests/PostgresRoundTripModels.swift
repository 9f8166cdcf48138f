import Foundation
import Strata

// Models the round trip (PostgresRoundTripTests) syncs on both engines, beside the PostgreSQL suites' own
// ones: every key type (Int64, Int, Int32, String, UUID, composite, a reference in a composite key), every
// value type (Int8...UInt32, Double, Float, Bool, String, Date, UUID, Data, Decimal, Codable, raw-value
// enums, arrays, optionals of each), indices (plain, unique, composite) and references with each ON
// DELETE action, to themselves and across key types.

struct RTAddress: Codable, Equatable {
    var street = ""
    var zip = ""
}

enum RTLevel: Int, Codable {
    case low = 1, high = 2
}

enum RTColor: String, Codable {
    case red, green
}

final class RTIntKey: Model {
    static let tableName = "rt_int_key"
    var id = 0
    var name = ""
    required init() {}
}

final class RTInt32Key: Model {
    static let tableName = "rt_int32_key"
    var id: Int32 = 0
    var label = ""
    required init() {}
}

final class RTStringKey: Model {
    static let tableName = "rt_string_key"
    static let primaryKey = "slug"
    var slug = ""
    var title = ""
    var views = 0
    required init() {}
}

final class RTUUIDKey: Model {
    static let tableName = "rt_uuid_key"
    var id = UUID()
    var body = ""
    required init() {}
}

final class RTIntegers: Model {
    static let tableName = "rt_integers"
    var id: Int64 = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var count = 0
    required init() {}
}

final class RTOptionals: Model {
    static let tableName = "rt_optionals"
    var id: Int64 = 0
    var int: Int?
    var double: Double?
    var bool: Bool?
    var text: String?
    var date: Date?
    var uuid: UUID?
    var data: Data?
    var decimal: Decimal?
    var address: RTAddress?
    var level: RTLevel?
    required init() {}
}

final class RTValues: Model {
    static let tableName = "rt_values"
    var id: Int64 = 0
    var double = 0.0
    var float: Float = 0
    var flag = false
    var at = Date(timeIntervalSince1970: 0)
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000") ?? UUID()
    var blob = Data()
    var amount = Decimal(0)
    var address = RTAddress()
    var level = RTLevel.low
    var color = RTColor.red
    var names: [String] = []
    required init() {}
}

final class RTIndexed: Model {
    static let tableName = "rt_indexed"
    static let indices = [["city"], ["city", "zip"]]
    static let uniqueIndices = [["email"], ["tenant", "handle"]]
    var id: Int64 = 0
    var email = ""
    var tenant = 0
    var handle = ""
    var city = ""
    var zip = ""
    required init() {}
}

final class RTOwner: Model {
    static let tableName = "rt_owner"
    var id: Int64 = 0
    var name = ""
    @Children(by: \RTPet.$owner) var pets: [RTPet]
    required init() {}
}

final class RTPet: Model {
    static let tableName = "rt_pet"
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .cascade) var owner: RTOwner?
    @Reference(onDelete: .setNull) var vet: RTOwner?
    @Reference(onDelete: .restrict) var breeder: RTOwner?
    @Reference(onDelete: .noAction) var groomer: RTOwner?
    required init() {}
}

/// A reference to itself (a tree).
final class RTNode: Model {
    static let tableName = "rt_node"
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .setNull) var parent: RTNode?
    required init() {}
}

/// References to a text key and to a UUID key.
final class RTLink: Model {
    static let tableName = "rt_link"
    var id: Int64 = 0
    @Reference(onDelete: .cascade) var page: RTStringKey?
    @Reference(onDelete: .setNull) var post: RTUUIDKey?
    required init() {}
}

/// A composite key of two plain columns.
final class RTComposite: Model {
    static let tableName = "rt_composite"
    static let compositeKey = ["region", "number"]
    var region = ""
    var number = 0
    var note = ""
    required init() {}
}

/// A composite key of two references (a join table with a payload).
final class RTMembership: Model {
    static let tableName = "rt_membership"
    static let compositeKey = ["owner", "node"]
    @Reference(onDelete: .cascade) var owner: RTOwner?
    @Reference(onDelete: .cascade) var node: RTNode?
    var role = ""
    var since = Date(timeIntervalSince1970: 0)
    required init() {}
}

/// A reference to a model with an Int32 key and one with an Int key.
final class RTTicket: Model {
    static let tableName = "rt_ticket"
    static let indices = [["opened"]]
    var id: Int64 = 0
    var opened = Date(timeIntervalSince1970: 0)
    @Reference var queue: RTInt32Key?
    @Reference(onDelete: .cascade) var account: RTIntKey?
    required init() {}
}
