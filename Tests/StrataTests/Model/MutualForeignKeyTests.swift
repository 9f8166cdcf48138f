import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Two models whose declared foreign keys point at each other: each one's sync makes the other's table
// first, which used to recurse without end (a stack overflow on first use).

private final class MFDepartment: Model {
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .setNull) var head: MFEmployee?
    required init() {}
}

private final class MFEmployee: Model {
    var id: Int64 = 0
    var name = ""
    @Reference(onDelete: .cascade) var department: MFDepartment?
    required init() {}
}

@Suite struct MutualForeignKeyTests {
    @Test func modelsWhoseForeignKeysPointAtEachOtherSyncAndFollowBothActions() throws {
        let db = try Database()
        let sales = MFDepartment(); sales.name = "Sales"
        try db.save(sales)
        let ada = MFEmployee(); ada.name = "Ada"; ada.department = sales
        try db.save(ada)
        sales.head = ada
        try db.save(sales)
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'MFDepartment'")?.contains("ON DELETE SET NULL") == true)
        #expect(try db.value(String.self, "SELECT sql FROM sqlite_master WHERE name = 'MFEmployee'")?.contains("ON DELETE CASCADE") == true)
        // SET NULL one way, CASCADE the other.
        #expect(try db.delete(ada))
        #expect(sales.head == nil && sales.$head.key == .null)
        let bob = MFEmployee(); bob.name = "Bob"; bob.department = sales
        try db.save(bob)
        #expect(try db.delete(sales))
        let left = try db.value(Int.self, "SELECT count(*) FROM MFEmployee")
        #expect(bob.isDeleted && left == 0)
    }

    @Test func eitherModelMayBeUsedFirst() throws {
        let db = try Database()
        #expect(try db.count(MFEmployee.self) == 0)
        #expect(try db.count(MFDepartment.self) == 0)
    }
}
