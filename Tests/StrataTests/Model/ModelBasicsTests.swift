import Foundation
import StrataTestSupport
import Testing
@testable import Strata

@Suite struct ModelBasicsTests {
    @Test func saveAssignsKeyAndFetchReturnsSameInstance() throws {
        let db = try TestDatabase.make()
        let sales = Department(); sales.name = "Sales"
        try db.save(sales)
        #expect(sales.id == 1)
        #expect(sales.isPersisted)
        let fetched = try #require(try db.object(Department.self, forKey: 1))
        #expect(fetched === sales)
        let all = try db.objects(Department.self)
        #expect(all.count == 1 && all[0] === sales)
    }

    // PostgreSQL: a raw UPDATE reaches live instances at their next lookup or fetch (by design)
    @Test(.tags(.sqliteOnly), .sqliteOnly("PostgreSQL: raw SQL reaches a live instance at its next lookup or fetch (by design), not at once")) func rawUpdateAndDeleteReachLiveInstances() throws {
        let db = try TestDatabase.make()
        let ada = Employee(); ada.name = "Ada"
        try db.save(ada)
        try db.execute("UPDATE $T SET name = ? WHERE name = ?", for: Employee.self, "Ada L.", "Ada")
        #expect(ada.name == "Ada L.")
        try db.execute("DELETE FROM $T WHERE $PK = ?", for: Employee.self, ada.employeeId)
        #expect(ada.isDeleted)
    }

    @Test func relationshipFault() throws {
        let db = try TestDatabase.make()
        let sales = Department(); sales.name = "Sales"
        try db.save(sales)
        let ada = Employee(); ada.name = "Ada"; ada.department = sales
        try db.save(ada)
        #expect(ada.$department.key == .integer(1))
        #expect(ada.department === sales)
    }
}
